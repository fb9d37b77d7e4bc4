// The connection doctor's log (owner/connection-log.ts) against the real local Blobs server:
// one attempt followed from GET /auth to a token refused by the blog's function, with no secret
// stored; its bounds (50 attempts per client, 30 days, 32 approved clients and 16 shared
// slots, which requests from anyone cannot grow); that what anyone can send naming an approved
// app (sign-in pages opened, made-up codes, Deny) keeps to a tier of 10 and never pushes the
// owner's real attempts out, and is shown as nobody's; and that a log that fails or hangs never
// changes nor holds up an answer of the protocol.
import { describe, expect, it } from "vitest";
import { approveEndpoint } from "../../netlify/lib/endpoints/approve.ts";
import { authorizationEndpoint } from "../../netlify/lib/endpoints/auth.ts";
import { tokenEndpoint } from "../../netlify/lib/endpoints/token.ts";
import { readConnectionLogs, recordConnectionStep, type StepEvent } from "../../netlify/lib/owner/connection-log.ts";
import { connectionView } from "../../netlify/lib/owner/connection-words.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import type { KeyValueStore } from "../../netlify/lib/platform/store.ts";
import { resourceServer } from "../../netlify/lib/resource/server.ts";
import {
  approveRequest,
  authorizationParams,
  authorizationRequest,
  BASE,
  bearer,
  CLIENT_ID,
  CLIENT_IP,
  codeForm,
  pkcePair,
  post,
  redirectParams,
  refreshForm,
  type Tokens,
} from "../helpers/requests.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { consoleGet, consoleSignIn } from "../helpers/console.ts";
import { OperationCounter, OPERATION_KINDS } from "../helpers/counting-store.ts";
import type { ConnectionsView } from "../../netlify/lib/pages/connections-view.ts";
import {
  ANONYMOUS_ATTEMPTS_PER_CLIENT,
  ATTEMPTS_PER_CLIENT,
  CONNECTION_APPROVED_CEILING,
  CONNECTION_SLOTS,
} from "../../netlify/lib/core/policy.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Netlify's context.waitUntil: the test awaits what was handed over. */
function platform() {
  const pending: Promise<unknown>[] = [];
  return {
    waitUntil: (work: Promise<unknown>) => void pending.push(work),
    settled: () => Promise.all(pending),
    handedOver: () => pending.length,
  };
}

/** The whole flow through the endpoints, each answer checked as a client sees it. */
async function connect(rt: TestRuntime, background?: ReturnType<typeof platform>) {
  const caller = { ip: CLIENT_IP, userAgent: "test", ...(background ? { waitUntil: background.waitUntil } : {}) };
  const { verifier, challenge } = pkcePair();
  const authorized = await authorizationEndpoint(
    authorizationRequest(authorizationParams({ code_challenge: challenge, scope: "create" })),
    rt,
    caller,
  );
  expect(authorized.status).toBe(303);
  const request = new URLSearchParams(authorized.headers.get("location")!.split("#")[1]).get("request")!;
  const approved = await approveEndpoint(approveRequest(request, { scopes: ["create"] }), rt, caller);
  expect(approved.status).toBe(302);
  const code = redirectParams(approved).get("code")!;
  const token = await tokenEndpoint(post("/token", codeForm({ code, verifier })), rt, caller);
  expect(token.status).toBe(200);
  const tokens = (await token.json()) as Tokens;
  const refreshed = await tokenEndpoint(post("/token", refreshForm(tokens.refresh_token)), rt, caller);
  expect(refreshed.status).toBe(200);
  return { code, tokens: { ...tokens, ...((await refreshed.json()) as Tokens) }, first: tokens };
}

const step = (clientId: string, at: number, link: string, extra: Partial<StepEvent> = {}): StepEvent => ({
  clientId,
  step: "consent",
  ok: true,
  at,
  links: [link],
  ...extra,
});

describe("the connection log", () => {
  it("follows one attempt from the request to a token refused by the blog's function, and stores no secret", async () => {
    const rt = await testRuntime();
    const background = platform();
    const { code, tokens, first } = await connect(rt, background);
    await background.settled();
    // The blog's function (same site: the same store) refuses the token for a scope it lacks.
    const blog = resourceServer({ env: { BASE_URL: BASE }, store: rt.store, now: rt.now });
    const refused = await blog.requireToken(
      new Request("https://jane.example/mcp", { headers: bearer(tokens.access_token) }),
      { scope: "media" },
    );
    expect((refused as Response).status).toBe(403);

    // The function hands nothing to a waitUntil: its log lands on its own, after the answer.
    await expect
      .poll(async () => (await readConnectionLogs(rt.store, rt.now()))[0]?.attempts[0]?.steps.map((s) => s.step), {
        timeout: 10_000,
      })
      .toContain("resource");
    const [log] = await readConnectionLogs(rt.store, rt.now());
    expect(log!.clientId).toBe(CLIENT_ID);
    expect(log!.approved).toBe(true);
    expect(log!.attempts).toHaveLength(1);
    expect(log!.attempts[0]!.steps.map((s) => [s.step, s.ok])).toEqual([
      ["document", true],
      ["consent", true],
      ["approved", true],
      ["code", true],
      ["refresh", true],
      ["resource", false],
    ]);
    const view = connectionView(log!);
    expect(view.attempts[0]!.steps.at(-1)).toMatchObject({
      error: "insufficient_scope",
      says: "Your blog refused the token: it lacks the scope the function requires.",
    });
    const stored = JSON.stringify(
      await rt.store.get(
        RECORDS.connectionLog.key(`a/${(await rt.store.list(RECORDS.connectionLog.key("a/")))[0]!.split("/").pop()}`),
      ),
    );
    for (const secret of [code, first.access_token, first.refresh_token, tokens.access_token, tokens.refresh_token])
      expect(stored).not.toContain(secret);
  });

  it("records the exact OAuth error /token answered", async () => {
    const rt = await testRuntime();
    const background = platform();
    const { verifier: _unused, challenge } = pkcePair();
    const caller = { ip: CLIENT_IP, userAgent: "test", waitUntil: background.waitUntil };
    const authorized = await authorizationEndpoint(
      authorizationRequest(authorizationParams({ code_challenge: challenge, scope: "create" })),
      rt,
      caller,
    );
    const request = new URLSearchParams(authorized.headers.get("location")!.split("#")[1]).get("request")!;
    const code = redirectParams(await approveEndpoint(approveRequest(request, { scopes: ["create"] }), rt, caller)).get(
      "code",
    )!;
    const refused = await tokenEndpoint(post("/token", codeForm({ code, verifier: pkcePair().verifier })), rt, caller);
    const body = (await refused.json()) as { error: string; error_description: string };
    await background.settled();
    const steps = (await readConnectionLogs(rt.store, rt.now()))[0]!.attempts[0]!.steps;
    expect(steps.at(-1)).toMatchObject({ step: "code", ok: false, error: body.error, detail: body.error_description });
    expect(body.error).toBe("invalid_grant");
  });

  it("keeps the last 50 attempts of a client, of the last 30 days", async () => {
    const rt = await testRuntime();
    const start = rt.now();
    for (let i = 0; i < ATTEMPTS_PER_CLIENT + 10; i++)
      await recordConnectionStep(
        rt.store,
        step(CLIENT_ID, start + i * 1000, `p:${i}`, { step: "approved", approvedClient: true }),
      );
    let [log] = await readConnectionLogs(rt.store, start + 60_000);
    expect(log!.attempts).toHaveLength(ATTEMPTS_PER_CLIENT);
    expect(log!.attempts[0]!.startedAt).toBe(start + (ATTEMPTS_PER_CLIENT + 9) * 1000);
    expect(log!.attempts.at(-1)!.startedAt).toBe(start + 10 * 1000);

    // 31 days later: the old attempts are gone from what is read, and from the record once written.
    const later = start + 31 * DAY_MS;
    expect(await readConnectionLogs(rt.store, later)).toEqual([]);
    await recordConnectionStep(rt.store, step(CLIENT_ID, later, "p:new", { step: "approved" }));
    [log] = await readConnectionLogs(rt.store, later);
    expect(log!.attempts.map((a) => a.startedAt)).toEqual([later]);
    expect(log!.expiresAt).toBe(later + 30 * DAY_MS);
  });

  it("holds at most 32 approved clients and 16 shared slots, however many clients send requests; the console reads them with one list", async () => {
    const counter = new OperationCounter();
    const rt = await testRuntime({ wrapStore: (store) => counter.wrap(store) });
    const at = rt.now();
    const approved = Array.from({ length: CONNECTION_APPROVED_CEILING + 4 }, (_, i) => `https://app-${i}.example/`);
    for (const clientId of approved)
      await recordConnectionStep(rt.store, step(clientId, at, "p:1", { step: "approved", approvedClient: true }));
    // Anyone can start sign-ins: 100 clients never approved.
    for (let i = 0; i < 100; i++)
      await recordConnectionStep(
        rt.store,
        step(`https://junk-${i}.example/`, at + 1, "p:1", { step: "request", ok: false, error: "invalid_request" }),
      );
    const keys = await rt.store.list(RECORDS.connectionLog.prefix);
    const approvedKeys = keys.filter((k) => k.startsWith(RECORDS.connectionLog.key("a/")));
    expect(approvedKeys).toHaveLength(CONNECTION_APPROVED_CEILING);
    expect(keys.length - approvedKeys.length).toBeLessThanOrEqual(CONNECTION_SLOTS);
    // The approved apps' logs are all still there: junk only churns the shared slots.
    const logs = await readConnectionLogs(rt.store, at + 2);
    expect(
      logs
        .filter((l) => l.approved)
        .map((l) => l.clientId)
        .sort(),
    ).toEqual(approved.slice(0, CONNECTION_APPROVED_CEILING).sort());
    expect(logs.length).toBeLessThanOrEqual(CONNECTION_APPROVED_CEILING + CONNECTION_SLOTS);

    // The console's Connections view: one list, one read per record, and the session's check.
    const cookie = await consoleSignIn(rt);
    counter.reset();
    const response = await consoleGet(rt, { cookie }, "/connections");
    const ops = counter.snapshot();
    expect(response.status).toBe(200);
    expect(((await response.json()) as ConnectionsView).clients).toHaveLength(logs.length);
    expect(ops.lists).toBe(1);
    expect(ops.writes).toBe(0);
    expect(OPERATION_KINDS.reduce((sum, kind) => sum + ops[kind], 0)).toBeLessThanOrEqual(
      CONNECTION_APPROVED_CEILING + CONNECTION_SLOTS + 4,
    );
  });
});

/** A sign-in request anyone can send, naming the app: GET /auth with a challenge of its own. */
async function openSignInPage(rt: TestRuntime, background: ReturnType<typeof platform>): Promise<string> {
  const caller = { ip: "203.0.113.66", userAgent: "stranger", waitUntil: background.waitUntil };
  const authorized = await authorizationEndpoint(
    authorizationRequest(authorizationParams({ code_challenge: pkcePair().challenge, scope: "create" })),
    rt,
    caller,
  );
  expect(authorized.status).toBe(303);
  return new URLSearchParams(authorized.headers.get("location")!.split("#")[1]).get("request")!;
}

/** The console's Connections view of the test app, as the owner's browser gets it. */
async function shownAttempts(rt: TestRuntime) {
  const response = await consoleGet(rt, { cookie: await consoleSignIn(rt) }, "/connections");
  expect(response.status).toBe(200);
  return ((await response.json()) as ConnectionsView).clients.find((c) => c.clientId === CLIENT_ID)!.attempts;
}

const FLOOD = ATTEMPTS_PER_CLIENT + 10;
const OPENED_BY_ANYONE = "Nobody signed in: the sign-in page was opened (by anyone who has the link)";

describe("attempts nobody signed in for", () => {
  it(`${FLOOD} anonymous GET /auth naming an approved app leave the owner's real attempts in the log, and are shown as nobody's`, async () => {
    const rt = await testRuntime();
    const background = platform();
    await connect(rt, background);
    await connect(rt, background);
    for (let i = 0; i < FLOOD; i++) {
      await openSignInPage(rt, background);
      // One after another, as in the test below: a log write that keeps losing races is dropped
      // (best effort), and which of a concurrent flood's writes land is not what this test is about.
      await background.settled();
    }

    const attempts = await shownAttempts(rt);
    // The owner's two real sign-ins are still there, each from its page to its refresh.
    const real = attempts.filter((a) => a.steps.some((s) => s.step === "approved"));
    expect(real).toHaveLength(2);
    expect(attempts.filter((a) => a.signedIn)).toEqual(real);
    for (const attempt of real) expect(attempt).toMatchObject({ says: "Got as far as a refresh", ok: true });
    expect(real[0]!.steps.map((s) => s.step)).toEqual(["document", "consent", "approved", "code", "refresh"]);
    const anonymous = attempts.filter((a) => !a.signedIn);
    expect(anonymous).toHaveLength(ANONYMOUS_ATTEMPTS_PER_CLIENT);
    for (const attempt of anonymous) {
      expect(attempt.says).toBe(OPENED_BY_ANYONE);
      expect(attempt.steps.at(-1)).toMatchObject({
        step: "consent",
        says: expect.stringContaining("nobody signed in"),
        note: expect.stringContaining("If it was you"),
      });
      expect(JSON.stringify(attempt)).not.toContain("shown to you");
    }
    // The record stays bounded: the owner's tier and the small tier of everyone else's.
    const [stored] = await Promise.all(
      (await rt.store.list(RECORDS.connectionLog.prefix)).map((key) =>
        rt.store.get<{ attempts: unknown[]; anonymous: unknown[] }>(key),
      ),
    );
    expect(stored).toMatchObject({ attempts: expect.any(Array), anonymous: expect.any(Array) });
    expect(stored!.attempts).toHaveLength(2);
    expect(stored!.anonymous).toHaveLength(ANONYMOUS_ATTEMPTS_PER_CLIENT);
  });

  it("nor do made-up codes and refresh tokens at /token, nor Deny pressed on anyone's sign-in page", async () => {
    const rt = await testRuntime();
    const background = platform();
    const caller = { ip: "203.0.113.66", userAgent: "stranger", waitUntil: background.waitUntil };
    const { tokens } = await connect(rt, background);
    for (let i = 0; i < FLOOD; i++) {
      await tokenEndpoint(
        post(
          "/token",
          codeForm({ code: `ic_${"x".repeat(40)}${String(i).padStart(3, "0")}`, verifier: pkcePair().verifier }),
        ),
        rt,
        caller,
      );
      await tokenEndpoint(
        post("/token", refreshForm(`irt_${"y".repeat(22)}.${"z".repeat(40)}${String(i).padStart(3, "0")}`)),
        rt,
        caller,
      );
      // One after another: a log write that keeps losing races is dropped (best effort), and
      // which of a concurrent flood's writes land is not what this test is about.
      await background.settled();
    }
    for (let i = 0; i < 12; i++) {
      const denied = await approveEndpoint(
        approveRequest(await openSignInPage(rt, background), { decision: "deny", password: null }),
        rt,
        caller,
      );
      expect(denied.status).toBe(302);
      await background.settled();
    }
    await background.settled();

    const attempts = await shownAttempts(rt);
    expect(attempts.filter((a) => a.steps.some((s) => s.step === "approved")).map((a) => a.says)).toEqual([
      "Got as far as a refresh",
    ]);
    expect(attempts.filter((a) => a.signedIn).map((a) => a.says)).toEqual(["Got as far as a refresh"]);
    const anonymous = attempts.filter((a) => !a.signedIn);
    expect(anonymous).toHaveLength(ANONYMOUS_ATTEMPTS_PER_CLIENT);
    expect(anonymous.map((a) => a.says)).toContain(
      "Nobody signed in: the request was denied on the sign-in page (Deny takes no password)",
    );
    // The app's own refresh still lands in its real attempt (the grant's link).
    await tokenEndpoint(post("/token", refreshForm(tokens.refresh_token)), rt, caller);
    await background.settled();
    const [latest] = (await shownAttempts(rt)).filter((a) => a.signedIn);
    // Both refreshes, said once (the view counts a step that repeats).
    expect(latest!.steps.filter((s) => s.step === "refresh").map((s) => s.says)).toEqual([
      "The app renewed its token (2 times).",
    ]);
  });

  it("a sign-in page opened again with a real attempt's PKCE challenge (it was in the link) stays apart from it", async () => {
    const rt = await testRuntime();
    const at = rt.now();
    await recordConnectionStep(
      rt.store,
      step(CLIENT_ID, at, "p:real", { step: "approved", links: ["p:real", "c:real"], approvedClient: true }),
    );
    for (let i = 1; i <= 9; i++) await recordConnectionStep(rt.store, step(CLIENT_ID, at + i, "p:real"));
    const [log] = await readConnectionLogs(rt.store, at + 10);
    expect(log!.attempts).toHaveLength(1);
    expect(log!.attempts[0]!.steps.map((s) => s.step)).toEqual(["approved"]);
    expect(log!.anonymous).toHaveLength(1);
    expect(log!.anonymous[0]!.steps).toHaveLength(8);
  });
});

/** A store whose connection log fails (or never answers); everything else passes through. */
function brokenLog(store: KeyValueStore, mode: "fail" | "hang"): KeyValueStore {
  const prefix = RECORDS.connectionLog.prefix;
  const broken = <T>(key: string, work: () => Promise<T>): Promise<T> =>
    key.startsWith(prefix)
      ? mode === "fail"
        ? Promise.reject(new Error("storage get failed or timed out"))
        : new Promise<T>(() => {})
      : work();
  return {
    get: (key) => broken(key, () => store.get(key)),
    set: (key, value) => broken(key, () => store.set(key, value)),
    setIfNew: (key, value) => broken(key, () => store.setIfNew(key, value)),
    getVersioned: (key) => broken(key, () => store.getVersioned(key)),
    setIfUnchanged: (key, value, version) => broken(key, () => store.setIfUnchanged(key, value, version)),
    delete: (key) => broken(key, () => store.delete(key)),
    list: (key) => broken(key, () => store.list(key)),
  };
}

describe("a connection log that fails", () => {
  it("changes no answer: the sign-in, the code, the refresh all go through when its storage fails", async () => {
    const rt = await testRuntime({ wrapStore: (store) => brokenLog(store, "fail") });
    const background = platform();
    const { tokens } = await connect(rt, background);
    expect(tokens.access_token).toMatch(/^iat_/);
    expect(background.handedOver()).toBeGreaterThanOrEqual(4);
    // What was handed over settles without rejecting: the failure stays in the log's own lane.
    await expect(background.settled()).resolves.toBeDefined();
  });

  it("holds up no answer when its storage never answers, with or without waitUntil", async () => {
    const rt = await testRuntime({ wrapStore: (store) => brokenLog(store, "hang") });
    const { tokens } = await connect(rt, platform());
    expect(tokens.refresh_token).toMatch(/^irt_/);
    await connect(rt);
  });
});
