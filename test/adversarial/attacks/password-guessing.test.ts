// Attack catalogue: password guessing. The throttle lives in the shared store, so it must hold
// across separate function instances (here: separate runtimes on one store, and a fresh module
// graph for a cold start), across every door the password opens (an app's sign-in page, the
// console, passkey sign-in), by address, by network and overall, and a lock must end exactly
// when it says: not before, not never. (Known devices: owner-lockout.test.ts.)
//
// Most suites here use a bcrypt hash at cost 4 (fastRuntime) so that dozens of guesses stay
// quick; the throttle does not depend on the hash.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { THROTTLE_POLICY } from "../../../netlify/lib/core/policy.ts";
import { FAST_PASSWORD_HASH, fastRuntime, storeSnapshot } from "../../helpers/attack-kit.ts";
import { consolePost, passkeysPost } from "../../helpers/console.ts";
import { approve, signedRequest } from "../../helpers/endpoints.ts";
import { BASE } from "../../helpers/requests.ts";
import { TEST_PASSWORD } from "../../helpers/env.ts";
import { testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { RECORDS } from "../../../netlify/lib/platform/records.ts";
import { withVersionedWrites } from "../../helpers/versioned-store.ts";
import { forgedAnswer, withPasskey } from "../../helpers/passkey-owner.ts";

const p = THROTTLE_POLICY;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const ATTACKER = "203.0.113.66";
/** The i-th address of a guesser spread over many networks (one per /24). */
const spread = (i: number) => `198.51.${i}.7`;

/** Two function instances: their own runtime and clock, one store. */
async function twoInstances(): Promise<[TestRuntime, TestRuntime]> {
  const a = await fastRuntime();
  const b = await fastRuntime({ storeName: a.storeName });
  return [a, b];
}

function tick(instances: TestRuntime[], ms: number): void {
  for (const rt of instances) rt.clock.advance(ms);
}

/** One guess at an app's sign-in page; the status says what happened (302 in, 303 wrong, 429 held back). */
async function guess(rt: TestRuntime, password: string, ip = ATTACKER): Promise<Response> {
  return approve(rt, await signedRequest(rt), { password, ip });
}

async function expectHeldBack(response: Response, retryAfterSeconds?: number): Promise<void> {
  expect(response.status).toBe(429);
  if (retryAfterSeconds !== undefined) expect(Number(response.headers.get("retry-after"))).toBe(retryAfterSeconds);
  expect(response.headers.get("location")).toBeNull();
}

async function failFreely(rt: TestRuntime[], count: number, ip = ATTACKER): Promise<void> {
  for (let i = 0; i < count; i++) expect((await guess(rt[i % rt.length]!, "wrong", ip)).status).toBe(303);
}

describe("password guessing: the throttle holds across function instances sharing one store", () => {
  it("five wrong passwords spread over two instances hold back the sixth on either, even the right one", async () => {
    const [a, b] = await twoInstances();
    await failFreely([a, b], p.freeFailuresPerIp);
    await expectHeldBack(await guess(a, TEST_PASSWORD), p.firstBackoffMs / SECOND);
    await expectHeldBack(await guess(b, TEST_PASSWORD), p.firstBackoffMs / SECOND);
    expect(await a.store.list(RECORDS.code.prefix)).toEqual([]);
  });

  it("an app's sign-in page, the console and passkey sign-in (an answer naming the owner's passkey that fails) all count against one address", async () => {
    const [a, b] = await twoInstances();
    const { authenticator } = await withPasskey(a);
    await failFreely([a], 2);
    for (let i = 0; i < 2; i++)
      expect((await consolePost(b, "/sign-in", { password: "wrong" }, { ip: ATTACKER })).status).toBe(401);
    expect(
      (await passkeysPost(a, "/sign-in", await forgedAnswer(a, authenticator.credentialId), { ip: ATTACKER })).status,
    ).toBe(401);
    await expectHeldBack(await consolePost(b, "/sign-in", { password: TEST_PASSWORD }, { ip: ATTACKER }));
    await expectHeldBack(await guess(a, TEST_PASSWORD));
  });

  it("past twenty failures in an hour from twenty networks, the overall limit lets one guess a minute through, on every instance", async () => {
    const [a, b] = await twoInstances();
    for (let i = 0; i < p.globalFailures; i++)
      expect((await guess(i % 2 ? a : b, "wrong", spread(i))).status).toBe(303);
    await expectHeldBack(await guess(a, TEST_PASSWORD, "192.0.2.1"), p.globalIntervalMs / SECOND);
    await expectHeldBack(
      await consolePost(b, "/sign-in", { password: TEST_PASSWORD }, { ip: "192.0.2.2" }),
      p.globalIntervalMs / SECOND,
    );
    // A minute on, one guess goes through; the next waits its minute again.
    tick([a, b], p.globalIntervalMs);
    expect((await guess(b, "wrong", "192.0.2.3")).status).toBe(303);
    await expectHeldBack(await guess(a, "wrong", "192.0.2.4"), p.globalIntervalMs / SECOND);
    tick([a, b], p.globalIntervalMs);
    expect((await guess(a, "wrong", "192.0.2.5")).status).toBe(303);
  });

  it("failures are also counted per IPv4 /24: ten from one network hold back its other addresses, never another network's", async () => {
    const rt = await fastRuntime();
    // Two each from five addresses: none reaches its own limit of five.
    for (let i = 0; i < p.freeFailuresPerNetwork; i++)
      expect((await guess(rt, "wrong", `198.51.100.${10 + (i % 5)}`)).status).toBe(303);
    await expectHeldBack(await guess(rt, TEST_PASSWORD, "198.51.100.99"), p.firstBackoffMs / SECOND);
    expect((await guess(rt, TEST_PASSWORD, "198.51.101.99")).status).toBe(302);
  });

  it("and per IPv6 /48: ten /64s of one /48 count as one network", async () => {
    const rt = await fastRuntime();
    for (let i = 0; i < p.freeFailuresPerNetwork; i++)
      expect((await guess(rt, "wrong", `2001:db8:77:${i.toString(16)}::1`)).status).toBe(303);
    await expectHeldBack(await guess(rt, TEST_PASSWORD, "2001:db8:77:ffff::1"), p.firstBackoffMs / SECOND);
    expect((await guess(rt, TEST_PASSWORD, "2001:db8:78::1")).status).toBe(302);
  });

  it("a cold start (a fresh module graph and runtime on the same store) still sees the lock", async () => {
    const [a] = await twoInstances();
    await failFreely([a], p.freeFailuresPerIp);
    vi.resetModules();
    const { approveEndpoint } = await import("../../../netlify/lib/endpoints/approve.ts");
    const { testRuntime: freshRuntime } = await import("../../helpers/runtime.ts");
    const cold = await freshRuntime({ storeName: a.storeName, env: { PASSWORD_HASH: FAST_PASSWORD_HASH } });
    const body = new URLSearchParams({ request: await signedRequest(a), decision: "approve", password: TEST_PASSWORD });
    const response = await approveEndpoint(
      new Request(`${BASE}/auth/approve`, {
        method: "POST",
        body,
        headers: { Origin: BASE, "Sec-Fetch-Site": "same-origin" },
      }),
      cold,
      { ip: ATTACKER },
    );
    await expectHeldBack(response);
  });

  it("while held back, even the right password is refused, and the attempt is neither counted nor recorded: only the hour's count of refusals grows", async () => {
    const rt = await fastRuntime();
    await failFreely([rt], p.freeFailuresPerIp);
    // Each guess starts with GET /auth, which the connection doctor logs (not the guess itself).
    const unlogged = async () =>
      Object.fromEntries(
        Object.entries(await storeSnapshot(rt.store)).filter(
          ([key]) => !key.startsWith(RECORDS.connectionLog.prefix) && !key.startsWith(RECORDS.signInOverflow.prefix),
        ),
      );
    const before = await unlogged();
    for (let i = 0; i < 5; i++) await expectHeldBack(await guess(rt, i % 2 ? TEST_PASSWORD : "wrong"));
    // No throttle, history, session or code record was written...
    expect(await unlogged()).toEqual(before);
    // ...but the owner will see that five were refused (history-flood.test.ts).
    expect(await rt.store.list(RECORDS.signInOverflow.prefix)).toHaveLength(1);
  });

  it("the address comes from the platform (context.ip), never from a header the guesser writes", async () => {
    const dir = join(new URL("../../../", import.meta.url).pathname, "netlify");
    const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith(".ts"));
    for (const file of files) {
      const source = await readFile(join(dir, file), "utf8");
      expect({
        file,
        reads: source.match(
          /x-forwarded-for|x-real-ip|x-nf-client-connection-ip|forwarded|cf-connecting-ip|true-client-ip/gi,
        ),
      }).toEqual({ file, reads: null });
    }
    // Every function passes the platform's context.ip to its endpoint, through one adapter.
    const functions = await Promise.all(
      ["approve", "account", "passkeys"].map((fn) => readFile(join(dir, "functions", `${fn}.ts`), "utf8")),
    );
    for (const source of functions) expect(source).toMatch(/export default asFunction\(\w+\);/);
    expect(await readFile(join(dir, "lib", "http", "function-adapter.ts"), "utf8")).toContain("ip: context?.ip");
  });
});

describe("password guessing: a lock ends when it should, and not before", () => {
  it("the first back-off lasts exactly its minute: held back a second before the end, let in at the end", async () => {
    const rt = await fastRuntime();
    await failFreely([rt], p.freeFailuresPerIp);
    rt.clock.advance(p.firstBackoffMs - SECOND);
    await expectHeldBack(await guess(rt, TEST_PASSWORD), 1);
    rt.clock.advance(SECOND);
    expect((await guess(rt, TEST_PASSWORD)).status).toBe(302);
  });

  it("each further failure doubles the back-off, up to fifteen minutes and never more", async () => {
    const rt = await fastRuntime();
    await failFreely([rt], p.freeFailuresPerIp - 1);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      expect((await guess(rt, "wrong")).status).toBe(303);
      const held = await guess(rt, TEST_PASSWORD);
      expect(held.status).toBe(429);
      const wait = Number(held.headers.get("retry-after"));
      waits.push(wait);
      rt.clock.advance(wait * SECOND);
    }
    expect(waits).toEqual([60, 120, 240, 480, 900, 900]);
  });

  it("an address's failures are remembered for a day: four now and one 23 hours later hold it back", async () => {
    const rt = await fastRuntime();
    await failFreely([rt], p.freeFailuresPerIp - 1);
    rt.clock.advance(23 * HOUR);
    await failFreely([rt], 1);
    await expectHeldBack(await guess(rt, TEST_PASSWORD));
  });

  it("the overall limit's wait lasts exactly its minute, on every instance: held back a second before, let in at the end", async () => {
    const [a, b] = await twoInstances();
    for (let i = 0; i < p.globalFailures; i++) await guess(a, "wrong", spread(i));
    tick([a, b], p.globalIntervalMs - SECOND);
    await expectHeldBack(await guess(b, TEST_PASSWORD, "192.0.2.1"), 1);
    tick([a, b], SECOND);
    expect((await guess(b, TEST_PASSWORD, "192.0.2.1")).status).toBe(302);
  });

  it("the overall limit lets go once the failures of the last hour are fewer than twenty", async () => {
    const rt = await fastRuntime();
    for (let i = 0; i < p.globalFailures; i++) await guess(rt, "wrong", spread(i));
    rt.clock.advance(p.globalWindowMs);
    expect((await guess(rt, "wrong", "192.0.2.1")).status).toBe(303);
    expect((await guess(rt, "wrong", "192.0.2.2")).status).toBe(303);
  });

  it("a right password clears its own address's count, never the overall window", async () => {
    const rt = await fastRuntime();
    for (let i = 0; i < p.globalFailures - 1; i++) await guess(rt, "wrong", spread(i));
    expect((await guess(rt, TEST_PASSWORD, spread(0))).status).toBe(302);
    expect((await guess(rt, "wrong", "192.0.2.9")).status).toBe(303);
    await expectHeldBack(await guess(rt, TEST_PASSWORD, "192.0.2.10"), p.globalIntervalMs / SECOND);
  });
});

describe("password guessing: guesses sent at the same moment", () => {
  // Each attempt is written into its counters (one conditional write each, retried when someone
  // wrote in between) before its password is checked, so guesses in flight at once see each
  // other: a plain read-then-write counter would let a whole burst through as one failure.
  // The store compares versions on replacement as production Blobs does (versioned-store.ts).
  it("twelve wrong passwords at once, over two instances: no more than five passwords are checked before the lock", async () => {
    // The real scrypt hash: each check takes long enough that the guesses overlap, as they do
    // when an attacker opens many connections at once.
    const a = await testRuntime();
    const b = await testRuntime({ storeName: a.storeName });
    a.store = b.store = withVersionedWrites(a.store);
    const request = await signedRequest(a);
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) => approve(i % 2 ? a : b, request, { password: `wrong-${i}`, ip: ATTACKER })),
    );
    expect(burst.every((r) => r.status === 303 || r.status === 429)).toBe(true);
    // Then one guess at a time until held back: burst and all, no more than five were checked.
    let checked = burst.filter((r) => r.status === 303).length;
    for (let response = await approve(a, request, { password: "wrong", ip: ATTACKER }); response.status !== 429;) {
      expect(response.status).toBe(303);
      checked++;
      response = await approve(b, request, { password: "wrong", ip: ATTACKER });
    }
    expect(checked).toBeLessThanOrEqual(p.freeFailuresPerIp);
  });

  it("thirty wrong passwords at once from thirty networks: the overall count loses none, and no more than twenty are checked", async () => {
    const a = await fastRuntime();
    const b = await fastRuntime({ storeName: a.storeName });
    a.store = b.store = withVersionedWrites(a.store);
    const request = await signedRequest(a);
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) => approve(i % 2 ? a : b, request, { password: `wrong-${i}`, ip: spread(i) })),
    );
    expect(burst.every((r) => r.status === 303 || r.status === 429)).toBe(true);
    const checked = burst.filter((r) => r.status === 303).length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(p.globalFailures);
    // Every password checked is in the overall count: none was lost to a write in between.
    const overall = await a.store.get<{ entries: unknown[] }>(RECORDS.throttleOverall.key());
    expect(overall?.entries).toHaveLength(checked);
  });
});
