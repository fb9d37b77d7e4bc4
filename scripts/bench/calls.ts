// Every call the bench makes into the server, in one place: the endpoint handlers (through the
// table the test helpers share, test/helpers/endpoints.ts) and the records it seeds directly
// (codes, grants, sessions, sign-in events, app approvals), cheaply and by the thousand, not through the
// password. When those modules change, this file (and that table) is what follows them.
import { randomBytes, randomUUID } from "node:crypto";
import { describeProblems, type Config, type Env } from "../../netlify/lib/platform/config.ts";
import { rememberApproval } from "../../netlify/lib/owner/app-approvals.ts";
import { startSession } from "../../netlify/lib/owner/sessions.ts";
import { recordSignInEvent } from "../../netlify/lib/owner/sign-in-events.ts";
import { issueRequestCode } from "../../netlify/lib/protocol/codes.ts";
import { newGrantId } from "../../netlify/lib/protocol/grant-tokens.ts";
import { createGrant, type IssuedTokens } from "../../netlify/lib/protocol/grants.ts";
import { OperationCounter } from "../../test/helpers/counting-store.ts";
import { seedGrants, type SeededGrant } from "../../test/helpers/seed-grants.ts";
import { testEnv } from "../../test/helpers/env.ts";
import { CLIENT_ID, REDIRECT_URI } from "../../test/helpers/requests.ts";
import { realClock, testRuntime, type FullRuntime } from "../../test/helpers/runtime.ts";
import { IP, SEED_CONCURRENCY, USER_AGENT } from "./settings.ts";
import { mapBounded, range } from "./stats.ts";

export { endpoints, signedRequest } from "../../test/helpers/endpoints.ts";

/** Counts the operations of every store the bench hands to the handlers. */
export const operations = new OperationCounter();

export interface Bench {
  rt: FullRuntime;
  config: Config;
}

/** The test environment with a fresh secret. */
export function benchEnv(): Promise<Env> {
  return testEnv({ SECRET: randomBytes(32).toString("base64url") });
}

/** A runtime on a store of its own (so that one scenario's records never weigh on another's),
 * on the wall clock, its operations counted, with client discovery that never leaves the process. */
export async function benchRuntime(env: Env, storeName: string): Promise<Bench> {
  const rt = await testRuntime({ env, storeName, clock: realClock(), wrapStore: (store) => operations.wrap(store) });
  if (!rt.config.ok) throw new Error(describeProblems(rt.config.problems));
  return { rt, config: rt.config.config };
}

const APP = { name: "Bench App" };

export function issueCodes(b: Bench, count: number, scopes: string[], challenge: string): Promise<string[]> {
  const input = {
    clientId: CLIENT_ID,
    redirectUri: REDIRECT_URI,
    codeChallenge: challenge,
    scopes,
    me: b.config.me,
    client: APP,
  };
  // Each code as an approved sign-in request's, for a request of its own.
  return mapBounded(range(count), SEED_CONCURRENCY, async () => {
    const now = b.rt.now();
    const request = { requestId: randomUUID(), requestExpiresAt: now };
    const issued = await issueRequestCode(b.rt.store, b.config.keys.code, request, input, now);
    if (!issued) throw new Error("a fresh request's code was refused");
    return issued.code;
  });
}

/** Grants of the bench's app, made as a code's redemption makes them. One at a time: each
 * updates the app's one summary record (a read and a conditional write, retried when another
 * wrote in between), and 16 at once retried past the storage deadline on a busy machine. */
export async function issueGrants(b: Bench, count: number, issuedAt = b.rt.now()): Promise<IssuedTokens[]> {
  const issued: IssuedTokens[] = [];
  for (let i = 0; i < count; i++) {
    const input = {
      id: newGrantId(),
      clientId: CLIENT_ID,
      me: b.config.me,
      scopes: ["profile", "email", "create"],
      client: APP,
    };
    issued.push(await createGrant(b.rt.store, input, issuedAt, b.config));
  }
  return issued;
}

/** Thousands of live grants of the bench's app, stored as a redemption stores them and counted
 * in its summary once (test/helpers/seed-grants.ts). */
export function storedGrants(b: Bench, count: number): Promise<SeededGrant[]> {
  return seedGrants(b.rt.store, b.config.me, { [CLIENT_ID]: count }, b.rt.now());
}

/** The record a typical grant leaves in storage, as JSON (the bare operations move one this size). */
export async function typicalGrantRecord(b: Bench): Promise<string> {
  const [typical] = await issueGrants(b, 1);
  return JSON.stringify(typical!.grant);
}

/** The owner approved the bench's app with the password before (so a session alone approves
 * it again, within these scopes). */
export async function approvedApp(b: Bench, scopes: string[]): Promise<void> {
  await rememberApproval(
    b.rt.store,
    { clientId: CLIENT_ID, redirectUri: REDIRECT_URI, scopes, method: "password" },
    b.rt.now(),
  );
}

/** A persistent owner session; returns its Cookie header value ("name=value"). */
export async function sessionCookie(b: Bench): Promise<string> {
  const input = { method: "password", persistent: true, ip: IP, userAgent: USER_AGENT } as const;
  const { setCookies } = await startSession(b.rt.store, b.config, input, b.rt.now());
  return setCookies[0]!.split(";", 1)[0]!;
}

/** A console as an owner sees it: a few apps, two devices, a short history; returns a session cookie. */
export async function seedAccount(account: Bench): Promise<string> {
  await issueGrants(account, 5);
  await sessionCookie(account);
  for (const i of range(10)) {
    const event = {
      at: account.rt.now() - i * 60_000,
      ip: IP,
      where: "authorization",
      method: "password",
      outcome: "success",
      clientId: CLIENT_ID,
    } as const;
    await recordSignInEvent(account.rt.store, event);
  }
  return sessionCookie(account);
}

/** The apps `count` grants belong to after years of use: mostly an MCP host reconnecting daily,
 * then a few phones, a feed reader and a Micropub client (each at least one grant). */
export function ownerGrants(b: Bench, count: number): Promise<SeededGrant[]> {
  const small = Math.max(1, Math.floor(count / 50));
  const apps = { "https://phone.example/": small, "https://reader.example/": small, [CLIENT_ID]: small };
  return seedGrants(
    b.rt.store,
    b.config.me,
    { "https://mcp-host.example/": Math.max(1, count - 3 * small), ...apps },
    b.rt.now(),
  );
}
