// Attack catalogue: the trust line of GET /auth and of POST /auth/approve (protocol/trust-steps.ts).
// Each endpoint is an ordered list of named steps, each tagged by what is known when it runs.
// Every step before the redirect URI is verified is failed here, for an app whose redirect URI
// the owner approved before (so that, once verified, its errors would be redirected): each
// failure is a page shown to the person, never a 302/303 to the client. Moving a step across the
// line, or adding one before it, fails the first test until the step has its failing case here.
import { describe, expect, it } from "vitest";
import type { ClientInfo } from "../../../netlify/lib/core/client-shape.ts";
import { APPROVE_STEPS } from "../../../netlify/lib/endpoints/approve.ts";
import { GET_AUTH_STEPS } from "../../../netlify/lib/endpoints/authorize.ts";
import { approvedBefore } from "../../helpers/approved-app.ts";
import { fastRuntime } from "../../helpers/attack-kit.ts";
import { approve, authorize, signedRequest } from "../../helpers/endpoints.ts";
import { authorizationParams, CLIENT_ID, REDIRECT_URI } from "../../helpers/requests.ts";
import type { TestRuntime } from "../../helpers/runtime.ts";

const ELSEWHERE = "https://elsewhere.example/cb";

/** The app publishes its redirect URI, and (approved before) both it and ELSEWHERE are trusted. */
async function trustedApp(discover?: (clientId: URL) => Promise<ClientInfo>): Promise<TestRuntime> {
  const rt = await fastRuntime({
    discover:
      discover ??
      (async (clientId) => ({ clientId: clientId.href, redirectUris: [REDIRECT_URI], fetched: true, name: "App" })),
  });
  await approvedBefore(rt, ELSEWHERE);
  return approvedBefore(rt);
}

/** Shown to the person: a page, no Location, nothing sent to the client. */
async function expectShown(response: Response, said: RegExp): Promise<void> {
  expect(response.status).toBe(400);
  expect(response.headers.get("location")).toBeNull();
  expect(response.headers.get("content-type")).toMatch(/^text\/html/);
  expect(await response.text()).toMatch(said);
}

/** GET /auth: a request failing at each step before the line. */
const GET_AUTH_FAILURES: Record<string, () => Promise<Response>> = {
  "client_id and redirect_uri": async () => {
    const params = authorizationParams({ response_type: "nope" });
    params.append("redirect_uri", ELSEWHERE);
    return authorize(await trustedApp(), params);
  },
  client: async () => {
    const copied = async (clientId: URL): Promise<ClientInfo> => ({
      clientId: clientId.href,
      redirectUris: [REDIRECT_URI],
      fetched: true,
      identityRefused: true,
      refused: "it names https://other.example/ as its client_id",
    });
    return authorize(await trustedApp(copied), authorizationParams());
  },
  "redirect_uri allowed": async () =>
    authorize(await trustedApp(), authorizationParams({ redirect_uri: ELSEWHERE, response_type: "nope" })),
};

/** POST /auth/approve: a form failing at each step before the line (a Deny, which would go back). */
const APPROVE_FAILURES: Record<string, () => Promise<Response>> = {
  "signed request": async () => {
    const rt = await trustedApp();
    const token = await signedRequest(rt);
    return approve(rt, `${token.slice(0, -4)}AAAA`, { decision: "deny" });
  },
};

const before = (steps: readonly { name: string; known: string }[]) =>
  steps.filter((step) => step.known === "unverified").map((step) => step.name);

describe("the trust line", () => {
  it("every step before the line has its failing case below; the lines fall where they should", () => {
    expect(before(GET_AUTH_STEPS)).toEqual(Object.keys(GET_AUTH_FAILURES));
    expect(before(APPROVE_STEPS)).toEqual(Object.keys(APPROVE_FAILURES));
    expect(GET_AUTH_STEPS.find((step) => step.known === "verified")?.name).toBe("parameters");
    expect(APPROVE_STEPS.find((step) => step.known === "verified")?.name).toBe("deny");
  });

  for (const [name, fail] of Object.entries(GET_AUTH_FAILURES)) {
    it(`GET /auth, "${name}" failing: shown, never redirected, though the app's redirect URIs are trusted`, async () => {
      await expectShown(await fail(), /For your safety you were not sent back to the app/);
    });
  }

  for (const [name, fail] of Object.entries(APPROVE_FAILURES)) {
    it(`POST /auth/approve, "${name}" failing: shown, never redirected, though the app's redirect URI is trusted`, async () => {
      await expectShown(await fail(), /This sign-in request was changed/);
    });
  }

  it("the control: past the line, the same app's errors are redirected (a bad response_type, a Deny)", async () => {
    const rt = await trustedApp();
    const failed = await authorize(rt, authorizationParams({ response_type: "nope" }));
    expect(failed.status).toBe(302);
    expect(failed.headers.get("location")).toMatch(
      /^https:\/\/app\.example\.com\/callback\?error=unsupported_response_type&/,
    );
    const denied = await approve(rt, await signedRequest(rt), { decision: "deny" });
    expect(denied.status).toBe(302);
    expect(denied.headers.get("location")).toMatch(/^https:\/\/app\.example\.com\/callback\?error=access_denied&/);
    expect(CLIENT_ID).toBe("https://app.example.com/");
  });
});
