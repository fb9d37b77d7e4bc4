// POST /register: dynamic client registration (RFC 7591), writing nothing: the client_id it
// answers carries the registration, signed (protocol/registered-clients.ts). GET /register/<id>:
// that registration as a metadata document. Both readable from any origin; no cookie is read here.
import { NO_SUBSCRIBERS } from "../platform/events.ts";
import { NotFound } from "../errors.ts";
import { endpoint, route, type Endpoint, type RequestContext } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import { readRegistration } from "../protocol/client-registration.ts";
import {
  readRegisteredClientId,
  registeredClientId,
  registeredDocument,
  REGISTRATION_PATH,
} from "../protocol/registered-clients.ts";

/** A registration body: a few hundred bytes in practice; far less than the other endpoints take. */
const MAX_REGISTRATION_BYTES = 16 * 1024;
/** A registration never changes: its document may be kept a day. */
const DOCUMENT_CACHING = "public, max-age=86400";

async function register(ctx: RequestContext): Promise<Response> {
  const registration = readRegistration(await ctx.json(), new URL(ctx.config.baseUrl));
  const clientId = registeredClientId(ctx.config.baseUrl, ctx.config.keys.registration, registration);
  // RFC 7591 3.2.1: 201, the client_id, and the metadata as registered (what was left out is absent).
  return json(
    { ...registeredDocument(clientId, registration), client_id_issued_at: Math.floor(ctx.rt.now() / 1000) },
    201,
  );
}

async function document(ctx: RequestContext): Promise<Response> {
  const read = readRegisteredClientId(ctx.config.baseUrl, ctx.config.keys.registration, ctx.url);
  if (read === null || "invalid" in read) throw new NotFound("No app registered itself at this address.");
  const answer = json(registeredDocument(ctx.url.href, read.registration), 200, { "Cache-Control": DOCUMENT_CACHING });
  answer.headers.delete("Pragma");
  return answer;
}

const registrationEndpoint = endpoint({
  events: NO_SUBSCRIBERS,
  cors: true,
  POST: route({
    caller: "anyone",
    answers: "json",
    body: { json: { maxBytes: MAX_REGISTRATION_BYTES } },
    redirects: "none",
    run: register,
  }),
});
const documentEndpoint = endpoint({
  events: NO_SUBSCRIBERS,
  cors: true,
  GET: route({ caller: "anyone", answers: "json", body: "none", redirects: "none", run: document }),
});

export const clientRegistration: Endpoint = (req, rt, requester) =>
  (new URL(req.url).pathname === REGISTRATION_PATH ? registrationEndpoint : documentEndpoint)(req, rt, requester);
