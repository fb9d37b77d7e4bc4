// The connection log is fed by events (platform/events.ts), through the real endpoints and the
// real local Blobs server: a refusal is logged at the stage where it happened (the step that
// refused it), with the OAuth error and words the client was answered, never sorted by those
// words. (The old log sorted GET /auth's refusals by a regular expression on their words.)
import { connectionLogSubscriber } from "../../netlify/lib/owner/connection-log.ts";
import { describe, expect, it } from "vitest";
import type { ClientInfo } from "../../netlify/lib/core/client-shape.ts";
import { authorizationEndpoint } from "../../netlify/lib/endpoints/auth.ts";
import { InvalidRequest } from "../../netlify/lib/errors.ts";
import { endpoint, route } from "../../netlify/lib/http/endpoint.ts";
import { readConnectionLogs } from "../../netlify/lib/owner/connection-log.ts";
import {
  authorizationParams,
  authorizationRequest,
  BASE,
  CLIENT_ID,
  CLIENT_IP,
  REDIRECT_URI,
} from "../helpers/requests.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const caller = { ip: CLIENT_IP, userAgent: "test" };

/** The steps the console's log holds for the test app (nobody signed in for any of these). */
async function loggedSteps(rt: TestRuntime) {
  const log = (await readConnectionLogs(rt.store, rt.now())).find((l) => l.clientId === CLIENT_ID);
  return [...(log?.attempts ?? []), ...(log?.anonymous ?? [])].flatMap((a) => a.steps);
}

describe("a refusal in the connection log", () => {
  it("is the request's when a request parameter is refused, even in words that name the client's document", async () => {
    const rt = await testRuntime();
    const answer = await authorizationEndpoint(
      authorizationRequest(authorizationParams({ response_type: "client metadata document" })),
      rt,
      caller,
    );
    expect(answer.status).toBeGreaterThanOrEqual(300);
    expect(await loggedSteps(rt)).toEqual([
      expect.objectContaining({
        step: "request",
        ok: false,
        error: "unsupported_response_type",
        detail: "response_type client metadata document is not supported; use code.",
      }),
    ]);
  });

  it("is the document's when the client's document is refused at GET /auth's client step", async () => {
    const copied = async (clientId: URL): Promise<ClientInfo> => ({
      clientId: clientId.href,
      redirectUris: [REDIRECT_URI],
      fetched: true,
      identityRefused: true,
      refused: "it names https://other.example/ as its client_id",
    });
    const rt = await testRuntime({ discover: copied });
    const answer = await authorizationEndpoint(authorizationRequest(authorizationParams()), rt, caller);
    expect(answer.status).toBe(400);
    expect(await loggedSteps(rt)).toEqual([
      expect.objectContaining({
        step: "document",
        ok: false,
        error: "invalid_request",
        detail: expect.stringContaining("it names https://other.example/"),
      }),
    ]);
  });

  it("is at the stage the handler had reached, whatever its words say: the frame emits it with the answer's own error and description", async () => {
    const rt = await testRuntime();
    // A handler that has reached the client's document and refuses in the request's words.
    const handler = endpoint({
      events: connectionLogSubscriber,
      GET: route({
        caller: "anyone",
        answers: "json",
        body: "none",
        redirects: "none",
        run: async (ctx) => {
          ctx.knows({ clientId: CLIENT_ID, stage: "document", challenge: "c".repeat(43) });
          throw new InvalidRequest("The sign-in request is malformed: a request parameter is wrong.");
        },
      }),
    });
    const answer = await handler(new Request(`${BASE}/anything`), rt, caller);
    expect(answer.status).toBe(400);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const body = (await answer.json()) as { error: string; error_description: string };
    expect(await loggedSteps(rt)).toEqual([
      expect.objectContaining({ step: "document", ok: false, error: body.error, detail: body.error_description }),
    ]);
  });
});
