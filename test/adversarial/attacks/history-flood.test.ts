// Attack catalogue: flooding the sign-in history, and the throttle's own records. Every attempt that reaches the history has
// passed the throttle first, on every path (PASSWORD_LOGIN=off included); the history itself
// is bounded (ten failures and thirty sign-ins an hour), so junk from any number of addresses
// cannot grow it without end nor push the owner's own sign-ins out; attempts the throttle
// refused are counted, not listed, at most a thousand writes an hour; passkey junk that cannot
// be the owner's writes nothing at all; and the console reads only the newest days it needs, so
// it answers at once however long the history is.
import { describe, expect, it } from "vitest";
import { CLIENT_TEXT_LIMIT, recordSignInEvent } from "../../../netlify/lib/owner/sign-in-events.ts";
import { approve, endpoints, signedRequest } from "../../helpers/endpoints.ts";
import { authorizationParams, consolePostRequest } from "../../helpers/requests.ts";
import { ACCOUNT_API } from "../../../netlify/lib/pages/paths.ts";
import { TEST_PASSWORD } from "../../helpers/env.ts";
import { heldStore } from "../../helpers/held-store.ts";
import { createSoftAuthenticator } from "../../helpers/soft-authenticator.ts";
import type { AccountOverview, SignInEventView } from "../../../netlify/lib/pages/account-view.ts";
import { RECORDS } from "../../../netlify/lib/platform/records.ts";
import type { KeyValueStore } from "../../../netlify/lib/platform/store.ts";
import { fastRuntime, storeSnapshot } from "../../helpers/attack-kit.ts";
import { consoleGet, consolePost, consoleSignIn } from "../../helpers/console.ts";
import { forgedAnswer, passkeyAnswer, passkeySignIn, withPasskey } from "../../helpers/passkey-owner.ts";
import { START_TIME, type TestRuntime } from "../../helpers/runtime.ts";
import {
  COUNTER_CAP,
  EVENT_SLOTS_PER_HOUR,
  REFUSED_COUNTED_PER_HOUR,
  THROTTLE_POLICY,
} from "../../../netlify/lib/core/policy.ts";

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const historyKeys = (rt: TestRuntime) => rt.store.list(RECORDS.signInEvent.prefix);

async function overview(rt: TestRuntime, cookie: string): Promise<AccountOverview> {
  const response = await consoleGet(rt, { cookie });
  expect(response.status).toBe(200);
  return (await response.json()) as AccountOverview;
}

function event(at: number, outcome: SignInEventView["outcome"] = "failure"): SignInEventView {
  return {
    at,
    ip: "203.0.113.9",
    where: "account",
    method: "password",
    outcome,
    ...(outcome === "failure" ? { reason: "wrong password" } : {}),
  };
}

/** Counts what the handlers list and read of the history. */
function watched(store: KeyValueStore) {
  const seen = { listed: [] as string[], keysListed: 0, eventsRead: 0 };
  const wrapped: KeyValueStore = {
    ...store,
    get: (key) => {
      if (key.startsWith(RECORDS.signInEvent.prefix)) seen.eventsRead++;
      return store.get(key);
    },
    list: async (prefix) => {
      const keys = await store.list(prefix);
      if (prefix.startsWith(RECORDS.signInEvent.prefix)) {
        seen.listed.push(prefix);
        seen.keysListed += keys.length;
      }
      return keys;
    },
  };
  return { seen, store: wrapped };
}

describe("history flood: the throttle comes before the history, on every path", () => {
  it("with PASSWORD_LOGIN=off, thirty passwords from one address: five refused as off, then 429, and five records", async () => {
    const rt = await fastRuntime({ env: { PASSWORD_LOGIN: "off" } });
    await withPasskey(rt);
    const before = (await historyKeys(rt)).length;
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++)
      statuses.push((await consolePost(rt, "/sign-in", { password: `guess-${i}` }, { ip: "203.0.113.66" })).status);
    expect(statuses).toEqual([
      ...Array<number>(THROTTLE_POLICY.freeFailuresPerIp).fill(403),
      ...Array<number>(30 - THROTTLE_POLICY.freeFailuresPerIp).fill(429),
    ]);
    expect((await historyKeys(rt)).length - before).toBe(THROTTLE_POLICY.freeFailuresPerIp);
  });
});

describe("history flood: the history is bounded", () => {
  it(`failing passkey answers from sixty networks in one hour leave ${EVENT_SLOTS_PER_HOUR.failure} failures, the rest counted; the owner's sign-in that hour is still recorded`, async () => {
    const rt = await fastRuntime();
    const { authenticator, cookie } = await withPasskey(rt);
    rt.clock.advance(HOUR);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++)
      statuses.push(
        (await passkeySignIn(rt, await forgedAnswer(rt, authenticator.credentialId), `198.51.${i}.7`)).status,
      );
    // Twenty are checked and counted, as wrong passwords are; then the overall limit refuses the rest.
    const checked = THROTTLE_POLICY.globalFailures;
    expect(statuses).toEqual([...Array<number>(checked).fill(401), ...Array<number>(60 - checked).fill(429)]);
    // The owner's passkey is never held back (and the console's session, from before, reads the history).
    expect((await passkeySignIn(rt, await passkeyAnswer(rt, authenticator))).status).toBe(200);

    const events = (await overview(rt, cookie)).events.filter((e) => e.at >= START_TIME + HOUR);
    const failures = events.filter((e) => e.outcome === "failure");
    expect(failures).toHaveLength(EVENT_SLOTS_PER_HOUR.failure);
    // The rest of the hour's failures are counted, and said on its newest listed failure, with the refusals.
    const unlisted = checked - EVENT_SLOTS_PER_HOUR.failure;
    expect(failures[0]).toMatchObject({
      unlisted,
      refused: 60 - checked,
      reason: `passkey not accepted; and ${unlisted} more failed attempts this hour, not listed; and ${60 - checked} more refused by the limit, not checked`,
    });
    expect(failures.slice(1).every((e) => e.unlisted === undefined && e.refused === undefined)).toBe(true);
    expect(events.filter((e) => e.outcome === "success").map((e) => e.method)).toEqual(["passkey"]);
    // The next hour has room again.
    rt.clock.advance(HOUR);
    expect((await passkeySignIn(rt, await forgedAnswer(rt, authenticator.credentialId), "192.0.2.77")).status).toBe(
      401,
    );
    expect((await overview(rt, cookie)).events[0]).toMatchObject({
      method: "passkey",
      outcome: "failure",
      ip: "192.0.2.77",
    });
  }, 60_000);
});

describe("history flood: attempts the limit refused leave a trace, cheaply", () => {
  const overflowOf = (rt: TestRuntime, at: number) =>
    rt.store.get<{ count: number; refused?: number }>(RECORDS.signInOverflow.key(Math.floor(at / HOUR)));

  it("thirty wrong passwords in an hour from one network, twenty refused by the back-off: ten failures listed, and 'and 20 more refused by the limit'", async () => {
    const rt = await fastRuntime();
    const request = await signedRequest(rt);
    const statuses: number[] = [];
    // Two each from five addresses of one /24 reach the network's ten; then every address is held back.
    for (let i = 0; i < 30; i++)
      statuses.push((await approve(rt, request, { password: `guess-${i}`, ip: `198.51.100.${10 + (i % 5)}` })).status);
    expect(statuses).toEqual([...Array<number>(10).fill(303), ...Array<number>(20).fill(429)]);
    const cookie = await consoleSignIn(rt, { ip: "192.0.2.9" });
    const failures = (await overview(rt, cookie)).events.filter((e) => e.outcome === "failure");
    expect(failures).toHaveLength(10);
    expect(failures[0]).toMatchObject({
      refused: 20,
      reason: "wrong password; and 20 more refused by the limit, not checked",
    });
    expect(failures[0]!.unlisted).toBeUndefined();
  });

  it("with the platform's waitUntil, the refusal is answered before its count is written, and the count follows", async () => {
    const rt = await fastRuntime();
    for (let i = 0; i < THROTTLE_POLICY.freeFailuresPerIp; i++)
      expect((await consolePost(rt, "/sign-in", { password: "wrong" }, { ip: "203.0.113.66" })).status).toBe(401);
    const held = heldStore(rt.store);
    const countWrite = held.hold("setIfUnchanged", { prefix: RECORDS.signInOverflow.prefix }, "before");
    const handed: Promise<unknown>[] = [];
    const request = consolePostRequest(ACCOUNT_API, "/sign-in", { password: TEST_PASSWORD }, {});
    const response = await endpoints.account(
      request,
      { ...rt, store: held.store },
      { ip: "203.0.113.66", userAgent: "test", waitUntil: (work) => void handed.push(work) },
    );
    // Answered while the count's write is still held.
    expect(response.status).toBe(429);
    await countWrite.reached;
    countWrite.release();
    await Promise.all(handed);
    expect(await overflowOf(rt, rt.clock.now)).toMatchObject({ refused: 1 });
  });

  it(`past ${REFUSED_COUNTED_PER_HOUR} refusals counted in an hour, a refusal writes nothing, and the hour says "at least"`, async () => {
    const rt = await fastRuntime();
    for (let i = 0; i < THROTTLE_POLICY.freeFailuresPerIp; i++)
      expect((await consolePost(rt, "/sign-in", { password: "wrong" }, { ip: "203.0.113.66" })).status).toBe(401);
    const key = RECORDS.signInOverflow.key(Math.floor(rt.clock.now / HOUR));
    await rt.store.setIfNew(key, {
      kind: "sign-in-overflow",
      count: 0,
      refused: REFUSED_COUNTED_PER_HOUR - 1,
      expiresAt: rt.clock.now + 30 * DAY,
    });
    const writes: string[] = [];
    const store = new Proxy(rt.store, {
      get(target, name: keyof KeyValueStore) {
        const method = (target[name] as (...args: unknown[]) => unknown).bind(target);
        return name.startsWith("set")
          ? (key: string, ...rest: unknown[]) => (writes.push(key), method(key, ...rest))
          : method;
      },
    });
    for (let i = 0; i < 5; i++)
      expect(
        (await consolePost({ ...rt, store }, "/sign-in", { password: "wrong" }, { ip: "203.0.113.66" })).status,
      ).toBe(429);
    // One write took the count to the most it counts; the other four wrote nothing at all.
    expect(writes).toEqual([key]);
    const cookie = await consoleSignIn(rt, { ip: "192.0.2.9" });
    const failure = (await overview(rt, cookie)).events.find((e) => e.outcome === "failure");
    expect(failure).toMatchObject({
      refused: REFUSED_COUNTED_PER_HOUR,
      reason: `wrong password; and at least ${REFUSED_COUNTED_PER_HOUR} more refused by the limit, not checked`,
    });
  });
});

describe("throttle flood: the throttle's own records are bounded", () => {
  const throttleKeys = async (rt: TestRuntime, prefix = "throttle/") => rt.store.list(prefix);
  const DAY_NUMBER = Math.floor(START_TIME / DAY);

  it("junk passkey answers that cannot be the owner's, from 120 addresses (with no passkey registered, and with one), write no record at all", async () => {
    const rt = await fastRuntime();
    const junkFrom120 = async () => {
      for (let i = 0; i < 120; i++)
        expect(
          (
            await passkeySignIn(
              rt,
              i % 2 ? { ticket: "x", response: "{}" } : { ticket: "x", response: '{"id":"x","response":{}}' },
              `198.51.${i}.7`,
            )
          ).status,
        ).toBe(401);
    };
    await junkFrom120();
    expect(await rt.store.list("")).toEqual([]);
    await withPasskey(rt);
    const before = await storeSnapshot(rt.store);
    await junkFrom120();
    // Nor an unregistered authenticator's genuine answer on a genuine ticket.
    expect((await passkeySignIn(rt, await passkeyAnswer(rt, createSoftAuthenticator()), "198.51.200.7")).status).toBe(
      401,
    );
    expect(await storeSnapshot(rt.store)).toEqual(before);
  }, 60_000);

  it("answers naming the registered passkey that fail, from 120 networks, stop writing at the overall limit, as wrong passwords do", async () => {
    const rt = await fastRuntime();
    const { authenticator } = await withPasskey(rt);
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++)
      statuses.push(
        (await passkeySignIn(rt, await forgedAnswer(rt, authenticator.credentialId), `198.51.${i}.7`)).status,
      );
    const checked = THROTTLE_POLICY.globalFailures;
    expect(statuses).toEqual([...Array<number>(checked).fill(401), ...Array<number>(120 - checked).fill(429)]);
    // An address and a network record for each of the twenty counted, none for the hundred refused.
    expect(await throttleKeys(rt, RECORDS.throttleAddress.prefix)).toHaveLength(2 * checked);
  }, 60_000);

  it("an IPv6 /48's 65,536 /64s are one network: 300 wrong passwords from 300 of them leave eleven records", async () => {
    const rt = await fastRuntime();
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++)
      statuses.push(
        (await consolePost(rt, "/sign-in", { password: "wrong" }, { ip: `2001:db8:99:${i.toString(16)}::1` })).status,
      );
    const held = THROTTLE_POLICY.freeFailuresPerNetwork;
    expect(statuses).toEqual([...Array<number>(held).fill(401), ...Array<number>(300 - held).fill(429)]);
    expect(await throttleKeys(rt, RECORDS.throttleAddress.prefix)).toHaveLength(held + 1);
  }, 60_000);

  it(`past ${COUNTER_CAP} address and network records over today and yesterday, no more are written, and the overall limit still counts`, async () => {
    const rt = await fastRuntime();
    // Yesterday's census one short of the cap: one more record may be written, then none.
    await rt.store.setIfNew(RECORDS.throttleCensus.key(DAY_NUMBER - 1), {
      kind: "throttle-census",
      count: COUNTER_CAP - 1,
      expiresAt: START_TIME + DAY,
    });
    const request = await signedRequest(rt);
    for (let i = 0; i < THROTTLE_POLICY.globalFailures; i++)
      expect((await approve(rt, request, { password: "wrong", ip: `198.51.${i}.7` })).status).toBe(303);
    expect(await throttleKeys(rt, RECORDS.throttleAddress.prefix)).toHaveLength(1);
    // The check still ran on every attempt: the overall count holds them all, and holds back the next.
    const held = await approve(rt, request, { ip: "192.0.2.1" });
    expect(held.status).toBe(429);
    expect(Number(held.headers.get("retry-after"))).toBe(THROTTLE_POLICY.globalIntervalMs / 1000);
  });
});

describe("history flood: what a guesser writes into the history is bounded", () => {
  it("a client_id of 2,000 characters is kept and shown as 100", async () => {
    const rt = await fastRuntime();
    const clientId = `https://app.example.com/${"x".repeat(1976)}`;
    const request = await signedRequest(rt, authorizationParams({ client_id: clientId }));
    expect((await approve(rt, request, { password: "wrong" })).status).toBe(303);
    const cookie = await consoleSignIn(rt);
    const failure = (await overview(rt, cookie)).events.find((e) => e.outcome === "failure");
    expect(failure?.clientId).toBe(`${clientId.slice(0, 99)}…`);
    expect(Array.from(failure!.clientId!)).toHaveLength(CLIENT_TEXT_LIMIT);
    // Stored cut too: the history's records hold no more than that.
    const stored = await Promise.all((await historyKeys(rt)).map((key) => rt.store.get<SignInEventView>(key)));
    expect(Math.max(...stored.map((e) => e?.clientId?.length ?? 0))).toBeLessThanOrEqual(CLIENT_TEXT_LIMIT);
  });
});

describe("history flood: the console reads only the newest days", () => {
  it("with a busy day and older history, it lists only today's events and reads about fifty", async () => {
    const rt = await fastRuntime();
    const cookie = await consoleSignIn(rt);
    // Sixty events today (three full hours), and some on each of the ten days before.
    const writes: Promise<boolean>[] = [];
    for (let day = 1; day <= 10; day++)
      for (let i = 0; i < 3; i++) writes.push(recordSignInEvent(rt.store, event(START_TIME - day * DAY - i * HOUR)));
    await Promise.all(writes);
    for (let hour = 1; hour <= 3; hour++) {
      for (let i = 0; i < 10; i++) {
        for (const outcome of ["failure", "success"] as const)
          expect(await recordSignInEvent(rt.store, event(START_TIME - hour * HOUR + i * MINUTE, outcome))).toBe(true);
      }
    }
    const { seen, store } = watched(rt.store);
    const shown = (await overview({ ...rt, store }, cookie)).events;

    expect(shown).toHaveLength(50);
    expect(shown.map((e) => e.at)).toEqual([...shown.map((e) => e.at)].sort((a, b) => b - a));
    expect(shown[0]!.at).toBeGreaterThanOrEqual(START_TIME - 1000);
    // One list, of today only (not the whole history), and no more reads than a page and an hour.
    expect(seen.listed).toHaveLength(1);
    expect(seen.listed[0]).not.toBe(RECORDS.signInEvent.prefix);
    expect(seen.keysListed).toBeLessThanOrEqual(61);
    expect(seen.eventsRead).toBeLessThanOrEqual(50 + EVENT_SLOTS_PER_HOUR.failure + EVENT_SLOTS_PER_HOUR.success);
  });

  it("a quiet month (one sign-in a day) is shown whole, newest first, across the days", async () => {
    const rt = await fastRuntime();
    await Promise.all(
      Array.from({ length: 29 }, (_, i) => recordSignInEvent(rt.store, event(START_TIME - (i + 1) * DAY, "success"))),
    );
    const cookie = await consoleSignIn(rt);
    const shown = (await overview(rt, cookie)).events;
    expect(shown.map((e) => e.at)).toEqual([
      START_TIME,
      ...Array.from({ length: 29 }, (_, i) => START_TIME - (i + 1) * DAY),
    ]);
  });

  it("a full hour refuses the next event of that outcome, never the other outcome's", async () => {
    const rt = await fastRuntime();
    const { failure, success } = EVENT_SLOTS_PER_HOUR;
    for (let i = 0; i < failure; i++)
      expect(await recordSignInEvent(rt.store, event(START_TIME + i * MINUTE))).toBe(true);
    expect(await recordSignInEvent(rt.store, event(START_TIME + 30 * MINUTE))).toBe(false);
    for (let i = 0; i < success; i++)
      expect(await recordSignInEvent(rt.store, event(START_TIME + i * MINUTE, "success"))).toBe(true);
    expect(await recordSignInEvent(rt.store, event(START_TIME + 59 * MINUTE, "success"))).toBe(false);
    expect(await historyKeys(rt)).toHaveLength(failure + success);
  });
});
