// The Connections view reads as what happened, in order, once (issue 33, item 5), through the real
// endpoints and the real local Blobs server: the README's sign-in by hand (its fixed PKCE
// challenge, a wrong password, the link opened again, then redeemed at POST /auth) is one
// complete sign-in, never "not redeemed at /token"; the same link used again later is an attempt
// of its own; an approval the app never redeemed says it stalled; a step that went well carries
// no fix; and a made-up code sent to POST /auth is nobody's.
import { describe, expect, it } from "vitest";
import { approveEndpoint } from "../../netlify/lib/endpoints/approve.ts";
import { authorizationEndpoint } from "../../netlify/lib/endpoints/auth.ts";
import { tokenEndpoint } from "../../netlify/lib/endpoints/token.ts";
import { readConnectionLogs } from "../../netlify/lib/owner/connection-log.ts";
import { connectionView } from "../../netlify/lib/owner/connection-words.ts";
import type { ConnectionClientView } from "../../netlify/lib/pages/connections-view.ts";
import {
  approveRequest,
  authorizationParams,
  authorizationRequest,
  CLIENT_ID,
  CLIENT_IP,
  codeForm,
  pkcePair,
  post,
  redirectParams,
} from "../helpers/requests.ts";
import { testRuntime } from "../helpers/runtime.ts";

/** A person and an app, one step a second, each log written before the next step. */
async function session() {
  const rt = await testRuntime();
  const pending: Promise<unknown>[] = [];
  const caller = { ip: CLIENT_IP, userAgent: "test", waitUntil: (work: Promise<unknown>) => void pending.push(work) };
  const settle = async () => {
    await Promise.all(pending.splice(0));
    rt.clock.advance(1000);
  };
  const open = async (challenge: string, scope = "profile"): Promise<string> => {
    const authorized = await authorizationEndpoint(
      authorizationRequest(authorizationParams({ code_challenge: challenge, scope })),
      rt,
      caller,
    );
    expect(authorized.status).toBe(303);
    await settle();
    return new URLSearchParams(authorized.headers.get("location")!.split("#")[1]).get("request")!;
  };
  const approve = async (request: string, scope = "profile", password?: string): Promise<Response> => {
    const answer = await approveEndpoint(
      approveRequest(request, { scopes: [scope], ...(password ? { password } : {}) }),
      rt,
      caller,
    );
    await settle();
    return answer;
  };
  const redeem = async (path: "/auth" | "/token", code: string, verifier: string): Promise<Response> => {
    const request = post(path, codeForm({ code, verifier }), { Accept: "application/json" });
    const answer = await (path === "/auth" ? authorizationEndpoint : tokenEndpoint)(request, rt, caller);
    await settle();
    return answer;
  };
  const view = async (): Promise<ConnectionClientView> =>
    connectionView((await readConnectionLogs(rt.store, rt.now()))[0]!);
  return { rt, open, approve, redeem, view };
}

/** Each attempt as its heading and its steps' words, fixes and notes. */
const read = (view: ConnectionClientView) =>
  view.attempts.map((a) => ({
    says: a.says,
    steps: a.steps.map((s) => [s.says, s.fix ? `Fix: ${s.fix}` : s.note ? `Note: ${s.note}` : ""]),
  }));

const README_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const README_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

describe("the Connections view", () => {
  it("reads the README's sign-in by hand (a wrong password, the link opened again, redeemed at POST /auth) as one complete sign-in", async () => {
    const { open, approve, redeem, view } = await session();
    const first = await open(README_CHALLENGE);
    expect((await approve(first, "profile", "not the password")).status).toBe(303);
    const again = await open(README_CHALLENGE);
    const code = redirectParams(await approve(again)).get("code")!;
    expect((await redeem("/auth", code, README_VERIFIER)).status).toBe(200);

    expect(read(await view())).toEqual([
      {
        says: "Signed in: the app has your profile URL",
        steps: [
          ["The sign-in request was checked and the app's information read (2 times).", ""],
          ["The sign-in page was shown to you (2 times).", ""],
          ["You approved it; the app was sent its code.", ""],
          [
            "The app redeemed its code at /auth for your profile URL: the sign-in is complete (a sign-in issues no token, so there is nothing to revoke).",
            "",
          ],
        ],
      },
    ]);
    expect(JSON.stringify(await view())).not.toContain("/token");
  });

  it("makes the same link used again later an attempt of its own, and a token in hand a note, never a fix", async () => {
    const { open, approve, redeem, view } = await session();
    const code = redirectParams(await approve(await open(README_CHALLENGE))).get("code")!;
    expect((await redeem("/auth", code, README_VERIFIER)).status).toBe(200);
    const second = redirectParams(await approve(await open(README_CHALLENGE, "create"), "create")).get("code")!;
    expect((await redeem("/token", second, README_VERIFIER)).status).toBe(200);

    const [latest, earlier] = read(await view());
    expect(earlier!.says).toBe("Signed in: the app has your profile URL");
    expect(earlier!.steps).toHaveLength(4);
    expect(latest!.says).toBe("Got as far as the token endpoint");
    expect(latest!.steps.map(([says]) => says)).toEqual([
      "The sign-in request was checked and the app's information read.",
      "The sign-in page was shown to you.",
      "You approved it; the app was sent its code.",
      "The app redeemed its code for a token.",
    ]);
    expect(latest!.steps.at(-1)![1]).toMatch(/^Note: The app holds a token now\./);
  });

  it("says an approval the app never redeemed stalled, without calling it approved or a fix", async () => {
    const { open, approve, view } = await session();
    await approve(await open(pkcePair().challenge));
    const [attempt] = (await view()).attempts;
    expect(attempt).toMatchObject({
      says: "Stalled after your approval: the app has not redeemed its code",
      ok: false,
    });
    expect(attempt!.steps.at(-1)).toMatchObject({
      says: "You approved it; the app was sent its code.",
      note: expect.stringContaining(
        "The app has not redeemed its code (at /token for a token, or at /auth for a sign-in)",
      ),
    });
    expect(attempt!.steps.some((s) => s.fix)).toBe(false);
  });

  it("shows a made-up code sent to POST /auth naming the app as nobody's, with the fix for the refusal", async () => {
    const { redeem, view } = await session();
    expect((await redeem("/auth", "ic_made-up", pkcePair().verifier)).status).toBe(400);
    const client = await view();
    expect(client.clientId).toBe(CLIENT_ID);
    expect(client.attempts).toHaveLength(1);
    expect(client.attempts[0]).toMatchObject({
      signedIn: false,
      says: "Nobody signed in: a code was refused at /auth",
    });
    expect(client.attempts[0]!.steps[0]).toMatchObject({
      step: "profile",
      ok: false,
      error: "invalid_grant",
      fix: expect.stringContaining("a code lives 10 minutes"),
    });
  });
});
