// What a developer tries under `netlify dev` behaves as deployed: the local Blobs server is not
// atomic by itself (it checks a write's condition, then writes), and every request runs in a
// worker thread of its own, yet twenty redemptions of one code, or twenty refreshes of one
// refresh token, sent at once through real HTTP, issue tokens once at most, as production Blobs'
// conditional writes guarantee (platform/store.ts, platform/local-write-lock.ts); and twenty
// redemptions of one app's twenty codes at once all succeed.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";

const CLIENT_ID = "http://127.0.0.1:5173/";
const REDIRECT_URI = "http://127.0.0.1:5173/callback";
const AT_ONCE = 20;

let server: NetlifyDev;

beforeAll(async () => {
  server = await startNetlifyDev();
});
afterAll(async () => {
  await server?.stop();
});

/** Signs in through the real pages' requests; the code and its PKCE verifier. */
async function signIn(): Promise<{ code: string; verifier: string }> {
  const verifier = randomBytes(32).toString("base64url");
  const url = new URL("/auth", server.baseUrl);
  const params = {
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    state: "s",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    scope: "create",
    me: server.env.ME!,
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const start = await fetch(url, { redirect: "manual" });
  expect(start.status).toBe(303);
  const request = new URLSearchParams(start.headers.get("location")!.split("#")[1]).get("request")!;
  const approved = await fetch(`${server.baseUrl}/auth/approve`, {
    method: "POST",
    body: new URLSearchParams({ request, decision: "approve", password: TEST_PASSWORD, scope: "create" }),
    redirect: "manual",
    headers: { Origin: server.baseUrl, "Sec-Fetch-Site": "same-origin" },
  });
  expect(approved.status).toBe(302);
  const code = new URL(approved.headers.get("location")!).searchParams.get("code");
  expect(code).toBeTruthy();
  return { code: code!, verifier };
}

function postToken(form: Record<string, string>): Promise<Response> {
  return fetch(`${server.baseUrl}/token`, {
    method: "POST",
    body: new URLSearchParams(form),
    headers: { Accept: "application/json" },
  });
}

function redemption(signedIn: { code: string; verifier: string }): Record<string, string> {
  return {
    grant_type: "authorization_code",
    code: signedIn.code,
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    code_verifier: signedIn.verifier,
  };
}

interface Outcome {
  /** The token responses: the race's winners. */
  won: number;
  /** The answers that said "try again" (503): on a loaded machine twenty worker threads starting
   * at once can outlast the storage deadline. Such a request may still have won in storage. */
  unavailable: number;
}

/** Every answer is a success, the standard refusal or the standard "try again", never a 500. */
async function outcome(responses: Response[]): Promise<Outcome> {
  const result = { won: 0, unavailable: 0 };
  for (const response of responses) {
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.headers.get("cache-control")).toBe("no-store");
    if (response.status === 200) result.won++;
    else if (response.status === 503) {
      expect(body.error).toBe("temporarily_unavailable");
      result.unavailable++;
    } else expect({ status: response.status, error: body.error }).toEqual({ status: 400, error: "invalid_grant" });
  }
  // A race needs runners: a run where (almost) every request timed out proves nothing.
  expect(responses.length - result.unavailable).toBeGreaterThanOrEqual(2);
  return result;
}

describe("netlify dev: conditional writes are as atomic as on production Blobs", { timeout: 120_000 }, () => {
  it(`${AT_ONCE} redemptions of one code at once: tokens are issued once at most`, async () => {
    const signedIn = await signIn();
    const { won } = await outcome(
      await Promise.all(Array.from({ length: AT_ONCE }, () => postToken(redemption(signedIn)))),
    );
    // Not always one: a refused replay revokes what the code gave, possibly before the winner
    // has written its grant, and the winner is then refused too (protocol/codes.ts).
    expect(won).toBeLessThanOrEqual(1);
  });

  it(`${AT_ONCE} redemptions of ${AT_ONCE} codes of one app at once: every one answered 200, every token active`, async () => {
    // Each used to update the app's one summary record, and one ran out of tries (a 503): now
    // each writes a change of its own (docs/data-model.md, "One app's burst").
    const codes: { code: string; verifier: string }[] = [];
    for (let i = 0; i < AT_ONCE; i++) codes.push(await signIn());
    const answers = await Promise.all(codes.map((signedIn) => postToken(redemption(signedIn))));
    expect(answers.map((answer) => answer.status)).toEqual(codes.map(() => 200));
    const tokens = await Promise.all(
      answers.map(async (answer) => ((await answer.json()) as { access_token: string }).access_token),
    );
    for (const token of tokens) {
      const check = await fetch(`${server.baseUrl}/introspect`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(await check.json()).toMatchObject({ active: true });
    }
  });

  it(`${AT_ONCE} refreshes of one refresh token at once: exactly one succeeds`, async () => {
    const response = await postToken(redemption(await signIn()));
    expect(response.status).toBe(200);
    const { refresh_token } = (await response.json()) as { refresh_token: string };
    const form = { grant_type: "refresh_token", refresh_token, client_id: CLIENT_ID };
    const { won, unavailable } = await outcome(
      await Promise.all(Array.from({ length: AT_ONCE }, () => postToken(form))),
    );
    // The first rotation to be written wins; unless the winner's answer was itself "try again".
    if (unavailable === 0) expect(won).toBe(1);
    else expect(won).toBeLessThanOrEqual(1);
  });
});
