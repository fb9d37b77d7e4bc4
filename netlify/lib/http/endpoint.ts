// The frame every endpoint runs in. An endpoint declares what it is: its paths and methods,
// whether each answers JSON or pages, the body each accepts, whether other origins may read it
// (CORS), and which posts must come from this site's own pages. The frame alone answers OPTIONS,
// unknown paths, wrong methods, an incomplete setup, cross-site posts, bodies a route does not
// accept, storage outages and anything thrown; the handlers only do their own work.
import { AccessDenied, AnsweredError, MethodNotAllowed, NotFound, SetupIncomplete } from "../errors.ts";
import { describeProblems, type Config, type ConfigProblem } from "../platform/config.ts";
import type { Capability, Runtime } from "../platform/runtime.ts";
export type { Capability } from "../platform/runtime.ts";
import type { ClientReply } from "../protocol/authorization-response.ts";
import { errorResponse, type Answers } from "./error-response.ts";
import { readForm, readJsonObject, type BodyRule } from "./body.ts";
import { preflight, readableByAnyOrigin } from "./cors.ts";
import { isSameOriginPost } from "./request.ts";
import type { Emit, Subject } from "../platform/events.ts";
import { eventSubscribers } from "../owner/event-subscribers.ts";

/** Who sent the request, as the platform reports it; and the platform's way to finish work
 * after the response has gone (Netlify's context.waitUntil), where it offers one. */
interface Requester {
  ip: string;
  userAgent: string;
  waitUntil?: ((work: Promise<unknown>) => void) | undefined;
}

/** `C`: the capabilities the handler needs of its function (platform/runtime.ts), and so its endpoint. */
export interface RequestContext<C extends Capability = never> {
  readonly req: Request;
  readonly url: URL;
  readonly rt: Runtime<C>;
  readonly config: Config;
  readonly requester: Requester;
  /** The body as form fields, read once, as the route's `body` rule reads it. */
  form(): Promise<URLSearchParams>;
  /** The body as one JSON object of any members, for a route that says `jsonBody`; read once. */
  json(): Promise<Record<string, unknown>>;
  /** From here on, refusals that may go to the client go to this verified URI: redirected
   * when it is trusted, else as a link on the page that shows the refusal. */
  replyTo: (target: ClientReply) => void;
  /** Tells the subscribers what happened, when the handler knows it (platform/events.ts). */
  emit: Emit;
  /** What the handler knows so far of the sign-in it answers: a refusal is emitted with it. */
  knows: (subject: Subject | null) => void;
  /** State of this request under `key`, made once by `make` however often it is asked for. */
  once: <T>(key: object, make: () => T) => T;
}

export type Handler<C extends Capability = never> = (ctx: RequestContext<C>) => Promise<Response>;

export interface Route<C extends Capability = never> {
  answers: Answers;
  run: Handler<C>;
  /** Posts from other sites are refused (403), with these words. */
  sameOriginOnly?: string;
  /** The body it accepts (http/body.ts). Unsaid: urlencoded or multipart fields, and a flat JSON
   * object where it answers JSON, as the owner's pages and console post them. */
  body?: BodyRule;
  /** The body is one JSON object of any members, up to this many bytes (RFC 7591 client
   * metadata), read by ctx.json() instead of as form fields. */
  jsonBody?: { maxBytes: number };
}

type Method = "GET" | "POST";
export type Methods<C extends Capability = never> = Partial<Record<Method, Route<C>>>;

interface EndpointSpec<C extends Capability> extends Methods<C> {
  /** Readable from any origin, for browser-based clients. Such endpoints never use cookies. */
  cors?: boolean;
}

/** An API with actions under one path, e.g. /indieauth/api/account/sign-in. */
interface ActionsSpec<C extends Capability> {
  base: string;
  actions: Record<string, Methods<C>>;
  /** The words for a path that is no action. */
  unknownAction: string;
}

export type Endpoint<C extends Capability = never> = (req: Request, rt: Runtime<C>, requester?: Partial<Requester>) => Promise<Response>;

function setupIncomplete(problems: readonly ConfigProblem[], development: boolean): SetupIncomplete {
  return new SetupIncomplete(describeProblems(problems), problems, development);
}

async function runRoute<C extends Capability>(route: Route<C>, req: Request, rt: Runtime<C>, requester: Requester): Promise<Response> {
  let reply: (ClientReply & { issuer: string }) | undefined;
  let subject: Subject | undefined;
  let emit: Emit | undefined;
  try {
    if (!rt.config.ok) throw setupIncomplete(rt.config.problems, rt.config.development);
    const { config } = rt.config;
    if (route.sameOriginOnly !== undefined && !isSameOriginPost(req, config.baseUrl)) throw new AccessDenied(route.sameOriginOnly);
    let form: Promise<URLSearchParams> | undefined;
    let body: Promise<Record<string, unknown>> | undefined;
    const { jsonBody } = route;
    const made = new Map<object, unknown>();
    emit = eventSubscribers({ rt, config, waitUntil: requester.waitUntil });
    const ctx: RequestContext<C> = {
      req,
      url: new URL(req.url),
      rt,
      config,
      requester,
      form: () => (form ??= readForm(req, route.body ?? { accepts: "fields", json: route.answers === "json" })),
      json: () => (body ??= jsonBody ? readJsonObject(req, jsonBody.maxBytes) : Promise.reject(new TypeError("this route reads no JSON object"))),
      replyTo: (target) => (reply = { ...target, issuer: config.issuer }),
      emit,
      knows: (known) => void (subject = known ?? undefined),
      once: <T>(key: object, make: () => T): T => (made.has(key) ? made.get(key) : made.set(key, make()).get(key)) as T,
    };
    // Every body is read, and refused when too large, malformed or not what the route accepts,
    // before any work is done.
    if (req.method === "POST") await (jsonBody ? ctx.json() : ctx.form());
    return await route.run(ctx);
  } catch (error) {
    // The refusal as answered (its code and words as fields), at the stage the handler had reached.
    if (emit && subject && error instanceof AnsweredError) await emit({ type: "refused", subject, error: error.error, description: error.description });
    return errorResponse(error, route.answers, reply, req);
  }
}

/** RFC 6797: once seen over https, browsers use nothing else here for a year. (Browsers
 * ignore it over http, and local development sends none.) */
const STRICT_TRANSPORT = "max-age=31536000";

function secureTransport(response: Response, rt: Runtime): Response {
  if (rt.config.ok && rt.config.config.baseUrl.startsWith("https:")) response.headers.set("Strict-Transport-Security", STRICT_TRANSPORT);
  return response;
}

/** On an auth host of its own (platform/setup.ts) the server answers there only: on the blog's
 * other hosts its paths are refused, so that no page of the blog reaches them same-origin. */
function servedElsewhere(req: Request, rt: Runtime): NotFound | null {
  if (!rt.config.ok || rt.config.config.setup !== "auth-host") return null;
  const home = new URL(rt.config.config.baseUrl);
  return new URL(req.url).host === home.host ? null : new NotFound(`This IndieAuth server answers at ${home.origin} only.`);
}

function serve<C extends Capability>(methods: (req: Request) => Methods<C> | NotFound, cors: boolean): Endpoint<C> {
  return async (req, rt, requester) => {
    const elsewhere = servedElsewhere(req, rt);
    if (elsewhere) return secureTransport(errorResponse(elsewhere, "json", undefined, req), rt);
    const found = methods(req);
    if (found instanceof NotFound) return secureTransport(errorResponse(found, "json", undefined, req), rt);
    const allowed = Object.keys(found);
    if (cors && req.method === "OPTIONS") return secureTransport(preflight(allowed), rt);
    const route = found[req.method === "HEAD" ? "GET" : (req.method as Method)];
    const who = { ip: requester?.ip ?? "", userAgent: requester?.userAgent ?? req.headers.get("user-agent") ?? "", waitUntil: requester?.waitUntil };
    const response = route ? await runRoute(route, req, rt, who) : errorResponse(new MethodNotAllowed(allowed), "json", undefined, req);
    return secureTransport(cors ? readableByAnyOrigin(response) : response, rt);
  };
}

export function endpoint<C extends Capability = never>(spec: EndpointSpec<C>): Endpoint<C> {
  const { cors = false, ...methods } = spec;
  return serve(() => methods, cors);
}

export function actionsEndpoint<C extends Capability = never>(spec: ActionsSpec<C>): Endpoint<C> {
  return serve((req) => {
    const action = new URL(req.url).pathname.slice(spec.base.length).replace(/\/$/, "");
    return Object.hasOwn(spec.actions, action) ? spec.actions[action]! : new NotFound(spec.unknownAction);
  }, false);
}
