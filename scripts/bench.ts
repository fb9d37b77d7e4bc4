// `npm run bench`: how fast and how lean each endpoint is, against the performance budgets.
// A benchmark, not a timed test: it prints one table per section, writes every number to
// test/output/bench.json and exits 1 when a budget is missed (0 otherwise).
//   1. handler time per endpoint, in-process against a real local Blobs server, beside the bare
//      Blobs operations on the same server: p50 <= storage floor + 1 ms of own CPU;
//   2. storage operations per request, counted at the store module;
//   3. cold start per function: minified bundle size and import time in a fresh Node process;
//   4. scale: introspection with 10 grants stored versus 10,000, and 200 at once;
//   5. the sign-in page: bytes of HTML+CSS+JS+icon, and no request to another origin.
// Nothing reaches the network: client discovery is stubbed and Blobs is local.
// `--json-only` prints the JSON document instead of the tables.
import { execFile } from "node:child_process";
import { randomBytes, createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { arch, cpus, loadavg, platform, release, tmpdir, totalmem } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { getStore, type Store } from "@netlify/blobs";
import { BlobsServer } from "@netlify/blobs/server";
import { build as esbuild, type Metafile } from "esbuild";
import { issueCode } from "../netlify/lib/protocol/codes.ts";
import { describeProblems, loadConfig, type Config, type Env } from "../netlify/lib/platform/config.ts";
import { handleAccount } from "../netlify/lib/endpoints/account.ts";
import { handleApprove } from "../netlify/lib/endpoints/approve.ts";
import { handleAuthorizationRequest } from "../netlify/lib/endpoints/authorize.ts";
import { handleMetadata } from "../netlify/lib/endpoints/metadata.ts";
import { handleProfileRedemption } from "../netlify/lib/endpoints/profile-redemption.ts";
import { handleRevocation } from "../netlify/lib/endpoints/revocation.ts";
import { handleToken } from "../netlify/lib/endpoints/token.ts";
import { handleTokenVerification } from "../netlify/lib/endpoints/token-verification.ts";
import { handleUserinfo } from "../netlify/lib/endpoints/userinfo.ts";
import { newGrantId } from "../netlify/lib/protocol/grant-tokens.ts";
import { createGrant, type IssuedTokens } from "../netlify/lib/protocol/grants.ts";
import { hashPassword, verifyPassword } from "../netlify/lib/owner/password.ts";
import { ACCOUNT_API, SIGN_IN_PAGE } from "../netlify/lib/pages/paths.ts";
import type { Runtime } from "../netlify/lib/platform/runtime.ts";
import { sessionSettings, startSession } from "../netlify/lib/owner/sessions.ts";
import { recordSignInEvent } from "../netlify/lib/owner/sign-in-events.ts";
import { blobStore, storageOperations } from "../netlify/lib/platform/store.ts";
import { buildSite } from "./build.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUTPUT = join(ROOT, "test", "output", "bench.json");

const BASE = "https://auth.jane.example";
const CLIENT_ID = "https://app.example.com/";
const REDIRECT_URI = "https://app.example.com/callback";
const PASSWORD = "correct horse battery staple";
const IP = "203.0.113.7";
const USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";

const CALLS = 500;
const WARMUP = 50;
const PASSWORD_CALLS = 10;
const IMPORT_RUNS = 9;
const SEED_CONCURRENCY = 64;
/** 1 KB = 1000 bytes: the stricter reading of the budgets. */
const KB = 1000;

const BUDGET = {
  ownCpuMs: 1,
  verificationReads: 1,
  verificationWrites: 1,
  redemptionOps: 3,
  entryBytes: 60 * KB,
  importMs: 15,
  scaleSmall: 10,
  scaleLarge: 10_000,
  scaleRatio: 1.2,
  concurrent: 200,
  signInPageBytes: 30 * KB,
} as const;

// ---------------------------------------------------------------------------------------
// Numbers

interface Stats {
  n: number;
  p50: number;
  p95: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

function stats(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted.at(-1) ?? Number.NaN };
}

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);
const kb = (bytes: number) => (bytes / KB).toFixed(1);
const range = (count: number) => Array.from({ length: count }, (_, i) => i);

/** Runs `work` over the items with at most `limit` in flight (seeding thousands of records). */
async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(range(Math.min(limit, items.length)).map(worker));
  return results;
}

/** Times `work` WARMUP + CALLS times, keeping the last CALLS. */
async function sampleTimes(work: (i: number) => Promise<unknown>, calls = CALLS, warmup = WARMUP): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < warmup + calls; i++) {
    const start = performance.now();
    await work(i);
    const elapsed = performance.now() - start;
    if (i >= warmup) times.push(elapsed);
  }
  return times;
}

async function sample(work: (i: number) => Promise<unknown>, calls = CALLS, warmup = WARMUP): Promise<Stats> {
  return stats(await sampleTimes(work, calls, warmup));
}

// ---------------------------------------------------------------------------------------
// Storage operations, as the store module counts them

type OpKind = "reads" | "writes" | "deletes" | "lists";
type OpCount = Record<OpKind, number>;
const OP_KINDS: readonly OpKind[] = ["reads", "writes", "deletes", "lists"];

function resetOperations(): void {
  for (const kind of OP_KINDS) storageOperations[kind] = 0;
}

function operationsSoFar(): OpCount {
  return { ...storageOperations };
}

const totalOps = (ops: OpCount) => OP_KINDS.reduce((sum, kind) => sum + ops[kind], 0);
const opsText = (ops: OpCount) => OP_KINDS.map((kind) => ops[kind]).join("/");

interface OpSummary {
  /** Per kind, the median call's count: what a request typically costs. */
  typical: OpCount;
  /** Per kind, the most any call did (a rate-limited write shows here). */
  max: OpCount;
}

function summarizeOps(calls: readonly OpCount[]): OpSummary {
  const pick = (p: number): OpCount => {
    const at = (kind: OpKind) => percentile(calls.map((c) => c[kind]).sort((a, b) => a - b), p);
    return { reads: at("reads"), writes: at("writes"), deletes: at("deletes"), lists: at("lists") };
  };
  return { typical: pick(50), max: pick(100) };
}

function opSummaryText(ops: OpSummary): string {
  const typical = opsText(ops.typical);
  const max = opsText(ops.max);
  return typical === max ? typical : `${typical} (max ${max})`;
}

// ---------------------------------------------------------------------------------------
// Budget checks: every section adds its own; the misses decide the exit code

interface Check {
  section: string;
  subject: string;
  measured: string;
  budget: string;
  pass: boolean;
}

const checks: Check[] = [];

function check(section: string, subject: string, measured: string, budget: string, pass: boolean): boolean {
  checks.push({ section, subject, measured, budget, pass });
  return pass;
}

const verdict = (pass: boolean | undefined) => (pass === undefined ? "-" : pass ? "PASS" : "MISS");

// ---------------------------------------------------------------------------------------
// Output

const jsonOnly = process.argv.includes("--json-only");

function say(line = ""): void {
  if (!jsonOnly) console.log(line);
}

function printTable(title: string, headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((header, col) => Math.max(header.length, ...rows.map((row) => (row[col] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!))).join("  ").trimEnd();
  say();
  say(title);
  say(line(headers));
  say(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) say(line(row));
}

// ---------------------------------------------------------------------------------------
// The local Blobs server and the runtime the handlers get

interface LocalBlobs {
  stop(): Promise<void>;
}

/** A real Blobs server on localhost; the context must be set before the first operation. */
async function startLocalBlobs(): Promise<LocalBlobs> {
  const directory = await mkdtemp(join(tmpdir(), "indieauth-bench-blobs-"));
  const token = randomBytes(16).toString("hex");
  const server = new BlobsServer({ directory, token });
  const { port } = await server.start();
  const url = `http://127.0.0.1:${port}`;
  process.env.NETLIFY_BLOBS_CONTEXT = Buffer.from(JSON.stringify({ siteID: "bench", token, edgeURL: url, uncachedEdgeURL: url })).toString("base64");
  return {
    async stop() {
      await server.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

async function benchEnv(): Promise<Env> {
  return {
    ME: "https://jane.example/",
    SECRET: randomBytes(32).toString("base64url"),
    PASSWORD_HASH: await hashPassword(PASSWORD),
    BASE_URL: BASE,
    PROFILE_NAME: "Jane Doe",
    PROFILE_PHOTO: "https://jane.example/photo.jpg",
    PROFILE_EMAIL: "jane@jane.example",
  };
}

interface Bench {
  rt: Runtime;
  config: Config;
}

/** A runtime on a store of its own (so that one scenario's records never weigh on another's),
 * with client discovery that never leaves the process. */
function benchRuntime(env: Env, storeName: string): Bench {
  const result = loadConfig(env);
  if (!result.ok) throw new Error(describeProblems(result.problems));
  const rt: Runtime = {
    config: result,
    store: blobStore(storeName),
    now: Date.now,
    discover: (clientId) => Promise.resolve({ clientId: clientId.href, redirectUris: [], fetched: false }),
  };
  return { rt, config: result.config };
}

// ---------------------------------------------------------------------------------------
// Setup through the library, not the password path: many fresh codes and tokens, cheaply

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

function issueCodes(b: Bench, count: number, scopes: string[], challenge: string): Promise<string[]> {
  const input = { clientId: CLIENT_ID, redirectUri: REDIRECT_URI, codeChallenge: challenge, scopes, me: b.config.me, client: { name: "Bench App" } };
  return mapBounded(range(count), SEED_CONCURRENCY, () => issueCode(b.rt.store, input, b.rt.now()));
}

function issueGrants(b: Bench, count: number, issuedAt = b.rt.now()): Promise<IssuedTokens[]> {
  return mapBounded(range(count), SEED_CONCURRENCY, async () => {
    const input = { id: newGrantId(), clientId: CLIENT_ID, me: b.config.me, scopes: ["profile", "email", "create"], client: { name: "Bench App" } };
    const issued = await createGrant(b.rt.store, input, issuedAt, b.config);
    if (!issued) throw new Error("grant id collision while seeding");
    return issued;
  });
}

async function sessionCookie(b: Bench): Promise<string> {
  const input = { method: "password", persistent: true, ip: IP, userAgent: USER_AGENT } as const;
  const { setCookie } = await startSession(b.rt.store, sessionSettings(b.config), input, b.rt.now());
  return setCookie.split(";", 1)[0]!;
}

function authorizationQuery(challenge: string): string {
  return new URLSearchParams({
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    state: "bench-state",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "profile email create",
    me: "https://jane.example/",
  }).toString();
}

/** The signed request GET /auth hands to the sign-in page (valid 15 minutes, not single use). */
async function signedRequest(b: Bench): Promise<string> {
  const response = await handleAuthorizationRequest(new Request(`${BASE}/auth?${authorizationQuery(pkcePair().challenge)}`), b.rt);
  const location = response.headers.get("location") ?? "";
  const token = new URLSearchParams(location.split("#")[1] ?? "").get("request");
  if (response.status !== 303 || !token) throw new Error(`GET /auth answered ${response.status} ${location}`);
  return token;
}

function post(path: string, fields: Record<string, string> | URLSearchParams, headers: Record<string, string> = {}): Request {
  return new Request(`${BASE}${path}`, { method: "POST", body: new URLSearchParams(fields), headers });
}

function approveForm(request: string, extra: Record<string, string> = {}): URLSearchParams {
  const form = new URLSearchParams({ request, decision: "approve", ...extra });
  for (const scope of ["profile", "email", "create"]) form.append("scope", scope);
  return form;
}

const SAME_ORIGIN = { Origin: BASE, "Sec-Fetch-Site": "same-origin", "User-Agent": USER_AGENT };

// ---------------------------------------------------------------------------------------
// (1) and (2): the endpoints

type OpsBudget = { describe: string; allows: (max: OpCount) => boolean };

const NO_STORAGE: OpsBudget = { describe: "0", allows: (max) => totalOps(max) === 0 };
const ONE_READ: OpsBudget = {
  describe: `<=${BUDGET.verificationReads} read, <=${BUDGET.verificationWrites} write`,
  allows: (max) => max.reads <= BUDGET.verificationReads && max.writes <= BUDGET.verificationWrites && max.deletes === 0 && max.lists === 0,
};
const REDEMPTION: OpsBudget = { describe: `<=${BUDGET.redemptionOps} in all`, allows: (max) => totalOps(max) <= BUDGET.redemptionOps };

interface EndpointCase {
  name: string;
  /** The Netlify function that serves it. */
  fn: string;
  /** Untimed: the i-th call's request (its own code, the latest refresh token...). */
  request(i: number): Request;
  /** Timed: the handler, as the function calls it. */
  handle(req: Request): Promise<Response>;
  /** Untimed: throws on a wrong answer; keeps what the next call needs. */
  check(response: Response): Promise<void>;
  opsBudget?: OpsBudget;
}

async function expectStatus(response: Response, status: number, what: string): Promise<void> {
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status} ${await response.text()}`);
}

async function expectJson(response: Response, what: string, field: string): Promise<Record<string, unknown>> {
  await expectStatus(response, 200, what);
  const body = (await response.json()) as Record<string, unknown>;
  if (body[field] === undefined || body[field] === false) throw new Error(`${what}: no ${field} in ${JSON.stringify(body)}`);
  return body;
}

const TOTAL_CALLS = WARMUP + CALLS;

async function endpointCases(b: Bench, account: Bench): Promise<EndpointCase[]> {
  const { rt } = b;
  const pkce = pkcePair();
  // Last used 10 minutes ago: each verification endpoint's first call records the use, which
  // shows the rate-limited write in the operation counts (once in all its calls).
  const lastUsed = rt.now() - 10 * 60_000;
  const [profileCodes, tokenCodes, revocable, verified, [refreshed], cookie, request] = await Promise.all([
    issueCodes(b, TOTAL_CALLS, ["profile", "email"], pkce.challenge),
    issueCodes(b, TOTAL_CALLS, ["profile", "email", "create"], pkce.challenge),
    issueGrants(b, TOTAL_CALLS),
    issueGrants(b, 3, lastUsed),
    issueGrants(b, 1),
    sessionCookie(b),
    signedRequest(b),
  ]);
  if (verified.length !== 3 || !refreshed) throw new Error("seeding grants failed");
  const accountCookie = await seedAccount(account);
  const bearer = (n: number) => ({ Authorization: `Bearer ${verified[n]!.accessToken}` });
  let refreshToken = refreshed.refreshToken;
  const authorizeUrl = `${BASE}/auth?${authorizationQuery(pkce.challenge)}`;
  const redemption = (code: string) => ({ code, client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, code_verifier: pkce.verifier });

  return [
    {
      name: "GET /.well-known/oauth-authorization-server",
      fn: "metadata",
      request: () => new Request(`${BASE}/.well-known/oauth-authorization-server`),
      handle: async (req) => handleMetadata(req, rt),
      check: async (res) => void (await expectJson(res, "metadata", "issuer")),
      opsBudget: NO_STORAGE,
    },
    {
      name: "GET /auth (authorization request)",
      fn: "auth",
      request: () => new Request(authorizeUrl),
      handle: (req) => handleAuthorizationRequest(req, rt),
      check: (res) => expectStatus(res, 303, "GET /auth"),
    },
    {
      name: "POST /auth/approve (session, no password)",
      fn: "approve",
      request: () => post("/auth/approve", approveForm(request), { ...SAME_ORIGIN, Cookie: cookie }),
      handle: (req) => handleApprove(req, rt, { ip: IP, userAgent: USER_AGENT }),
      check: async (res) => {
        await expectStatus(res, 302, "approve");
        if (!new URL(res.headers.get("location") ?? "", BASE).searchParams.get("code")) throw new Error("approve: no code");
      },
    },
    {
      name: "POST /auth (code -> profile)",
      fn: "auth",
      request: (i) => post("/auth", redemption(profileCodes[i]!)),
      handle: (req) => handleProfileRedemption(req, rt),
      check: async (res) => void (await expectJson(res, "POST /auth", "me")),
      opsBudget: REDEMPTION,
    },
    {
      name: "POST /token (code -> tokens)",
      fn: "token",
      request: (i) => post("/token", { grant_type: "authorization_code", ...redemption(tokenCodes[i]!) }),
      handle: (req) => handleToken(req, rt),
      check: async (res) => void (await expectJson(res, "POST /token", "access_token")),
      opsBudget: REDEMPTION,
    },
    {
      // Refresh tokens rotate: each call presents the one the previous call returned.
      name: "POST /token (refresh)",
      fn: "token",
      request: () => post("/token", { grant_type: "refresh_token", refresh_token: refreshToken, client_id: CLIENT_ID }),
      handle: (req) => handleToken(req, rt),
      check: async (res) => {
        refreshToken = String((await expectJson(res, "refresh", "refresh_token")).refresh_token);
      },
    },
    {
      name: "POST /introspect",
      fn: "introspect",
      request: () => post("/introspect", {}, bearer(0)),
      handle: (req) => handleTokenVerification(req, rt, { readBody: true }),
      check: async (res) => void (await expectJson(res, "introspect", "active")),
      opsBudget: ONE_READ,
    },
    {
      name: "GET /token (legacy verification)",
      fn: "token",
      request: () => new Request(`${BASE}/token`, { headers: bearer(1) }),
      handle: (req) => handleToken(req, rt),
      check: async (res) => void (await expectJson(res, "GET /token", "active")),
      opsBudget: ONE_READ,
    },
    {
      name: "GET /userinfo",
      fn: "userinfo",
      request: () => new Request(`${BASE}/userinfo`, { headers: bearer(2) }),
      handle: (req) => handleUserinfo(req, rt),
      check: async (res) => void (await expectJson(res, "userinfo", "sub")),
      opsBudget: ONE_READ,
    },
    {
      name: "POST /revoke (live token)",
      fn: "revoke",
      request: (i) => post("/revoke", { token: revocable[i]!.accessToken }),
      handle: (req) => handleRevocation(req, rt),
      check: (res) => expectStatus(res, 200, "revoke"),
    },
    {
      name: "GET /indieauth/api/account (session)",
      fn: "account",
      request: () => new Request(`${BASE}${ACCOUNT_API}`, { headers: { "Sec-Fetch-Site": "same-origin", "User-Agent": USER_AGENT, Cookie: accountCookie } }),
      handle: (req) => handleAccount(req, account.rt, { ip: IP, userAgent: USER_AGENT }),
      check: async (res) => void (await expectJson(res, "account", "apps")),
    },
  ];
}

/** A console as an owner sees it: a few apps, two devices, a short history. */
async function seedAccount(account: Bench): Promise<string> {
  await issueGrants(account, 5);
  await sessionCookie(account);
  for (const i of range(10)) {
    await recordSignInEvent(account.rt.store, { at: account.rt.now() - i * 60_000, ip: IP, where: "authorization", method: "password", outcome: "success", clientId: CLIENT_ID });
  }
  return sessionCookie(account);
}

interface EndpointResult {
  name: string;
  fn: string;
  stats: Stats;
  ops: OpSummary;
  /** p50 of the bare operations taken right after this endpoint's calls (see pairedBare). */
  pairedBareP50: Partial<Record<BareKind, number>>;
  floorMs: number;
  ratioToGet: number;
  budgetMs: number;
  pass: boolean;
  opsBudget?: string;
  opsPass?: boolean;
}

type BareKind = "get" | "set" | "delete" | "list";
type BareOperations = Record<BareKind, Stats>;
type BareSamples = Record<BareKind, number[]>;
const BARE_KINDS: readonly BareKind[] = ["get", "set", "delete", "list"];

const emptySamples = (): BareSamples => ({ get: [], set: [], delete: [], list: [] });

/** Bare @netlify/blobs calls on the same server, no store module around them. */
interface BareBlobs {
  blobs: Store;
  /** A record of a grant's real size. */
  value: string;
}

async function bareBlobs(value: string): Promise<BareBlobs> {
  const blobs = getStore({ name: "bench-bare", consistency: "strong" });
  await blobs.set("bare/get", value);
  await Promise.all(range(10).map((i) => blobs.set(`bare/list/${i}`, value)));
  return { blobs, value };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** The first thousand requests of a process run slower (JIT, connections): without this the
 * bare operations, measured first, would look slower than the endpoints measured after them. */
async function warmUpBlobs({ blobs, value }: BareBlobs): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    await blobs.set("warm-up", value);
    await blobs.get("warm-up", { type: "json" });
    if (i % 10 === 0) await blobs.list({ prefix: "bare/list/" });
  }
  await blobs.delete("warm-up");
}

async function sampleBareOperations({ blobs, value }: BareBlobs, round: number): Promise<BareSamples> {
  return {
    get: await sampleTimes(() => blobs.get("bare/get", { type: "json" })),
    set: await sampleTimes((i) => blobs.set(`bare/set/${round}/${i}`, value)),
    delete: await sampleTimes((i) => blobs.delete(`bare/set/${round}/${i}`)),
    list: await sampleTimes(() => blobs.list({ prefix: "bare/list/" })),
  };
}

/** One bare operation of each kind the call just did, right after it: the floor is measured
 * under the same load as the endpoint (on a shared machine, load moves minute to minute). */
async function pairedBare({ blobs, value }: BareBlobs, ops: OpCount, i: number, into: BareSamples): Promise<void> {
  const key = `bare/paired/${i}`;
  if (ops.reads > 0) into.get.push(await timed(() => blobs.get("bare/get", { type: "json" })));
  if (ops.writes > 0 || ops.deletes > 0) {
    const elapsed = await timed(() => blobs.set(key, value));
    if (ops.writes > 0) into.set.push(elapsed);
  }
  if (ops.deletes > 0) into.delete.push(await timed(() => blobs.delete(key)));
  if (ops.lists > 0) into.list.push(await timed(() => blobs.list({ prefix: "bare/list/" })));
}

function pooledBare(rounds: readonly BareSamples[]): BareOperations {
  const pool = (kind: BareKind) => stats(rounds.flatMap((round) => round[kind]));
  return { get: pool("get"), set: pool("set"), delete: pool("delete"), list: pool("list") };
}

interface MeasuredEndpoint {
  stats: Stats;
  ops: OpSummary;
  paired: BareSamples;
}

async function measureEndpoint(c: EndpointCase, bare: BareBlobs, calls = CALLS, warmup = WARMUP): Promise<MeasuredEndpoint> {
  const times: number[] = [];
  const ops: OpCount[] = [];
  const paired = emptySamples();
  for (let i = 0; i < warmup + calls; i++) {
    const req = c.request(i);
    resetOperations();
    const start = performance.now();
    const response = await c.handle(req);
    const elapsed = performance.now() - start;
    const callOps = operationsSoFar();
    ops.push(callOps);
    await c.check(response);
    if (i < warmup) continue;
    times.push(elapsed);
    await pairedBare(bare, callOps, i, paired);
  }
  return { stats: stats(times), ops: summarizeOps(ops), paired };
}

/** What the storage operations alone cost at p50, done one after another. */
function storageFloor(ops: OpCount, p50: Record<BareKind, number>): number {
  return ops.reads * p50.get + ops.writes * p50.set + ops.deletes * p50.delete + ops.lists * p50.list;
}

function judgeEndpoint(c: EndpointCase, measured: MeasuredEndpoint, bare: BareOperations): EndpointResult {
  const { stats: s, ops, paired } = measured;
  const pairedBareP50: Partial<Record<BareKind, number>> = {};
  for (const kind of BARE_KINDS) if (paired[kind].length > 0) pairedBareP50[kind] = stats(paired[kind]).p50;
  // A kind the endpoint never did has no paired sample, and a count of 0 in the floor.
  const p50 = (kind: BareKind) => pairedBareP50[kind] ?? bare[kind].p50;
  const floorMs = storageFloor(ops.typical, { get: p50("get"), set: p50("set"), delete: p50("delete"), list: p50("list") });
  const budgetMs = floorMs + BUDGET.ownCpuMs;
  const pass = check("1 endpoints", c.name, `p50 ${ms(s.p50)} ms`, `<= floor ${ms(floorMs)} + ${BUDGET.ownCpuMs} ms`, s.p50 <= budgetMs);
  const result: EndpointResult = { name: c.name, fn: c.fn, stats: s, ops, pairedBareP50, floorMs, ratioToGet: s.p50 / bare.get.p50, budgetMs, pass };
  if (c.opsBudget) {
    result.opsBudget = c.opsBudget.describe;
    result.opsPass = check("2 storage", c.name, opSummaryText(ops), c.opsBudget.describe, c.opsBudget.allows(ops.max));
  }
  return result;
}

async function runEndpoints(b: Bench, account: Bench, reference: BareBlobs): Promise<{ bare: BareOperations; endpoints: EndpointResult[] }> {
  await warmUpBlobs(reference);
  const before = await sampleBareOperations(reference, 1);
  const measured: [EndpointCase, MeasuredEndpoint][] = [];
  for (const c of await endpointCases(b, account)) measured.push([c, await measureEndpoint(c, reference)]);
  // Before and after, pooled: the bare reference of the whole section.
  const bare = pooledBare([before, await sampleBareOperations(reference, 2)]);
  return { bare, endpoints: measured.map(([c, m]) => judgeEndpoint(c, m, bare)) };
}

interface PasswordResult {
  algorithm: string;
  parameters: Record<string, number>;
  hash: Stats;
  approve: Stats;
  approveOps: OpSummary;
}

/** The deliberate cost: the password hash alone, and the sign-in POST that pays it. */
async function measurePassword(b: Bench, bare: BareBlobs): Promise<PasswordResult> {
  const hash = b.config.password;
  if (hash.kind !== "scrypt") throw new Error("the bench hashes with scrypt");
  const hashStats = await sample(async () => {
    if (!(await verifyPassword(PASSWORD, hash))) throw new Error("the password did not verify");
  }, PASSWORD_CALLS, 1);
  const request = await signedRequest(b);
  const approve: EndpointCase = {
    name: "POST /auth/approve (password)",
    fn: "approve",
    request: () => post("/auth/approve", approveForm(request, { password: PASSWORD }), SAME_ORIGIN),
    handle: (req) => handleApprove(req, b.rt, { ip: IP, userAgent: USER_AGENT }),
    check: (res) => expectStatus(res, 302, "approve with password"),
  };
  const measured = await measureEndpoint(approve, bare, PASSWORD_CALLS, 1);
  return {
    algorithm: "scrypt",
    parameters: { N: 2 ** hash.logN, logN: hash.logN, r: hash.r, p: hash.p },
    hash: hashStats,
    approve: measured.stats,
    approveOps: measured.ops,
  };
}

function printEndpoints(bare: BareOperations, endpoints: readonly EndpointResult[], password: PasswordResult): void {
  printTable(
    `(1) Handler time, in-process, local Blobs server (${CALLS} calls after ${WARMUP} warm-up; budget p50 <= storage floor + ${BUDGET.ownCpuMs} ms)`,
    ["", "p50 ms", "p95 ms", "ops r/w/d/l", "floor ms", "x get", "budget ms", ""],
    [
      ...BARE_KINDS.map((op) => [`bare Blobs ${op}`, ms(bare[op].p50), ms(bare[op].p95), "", "", op === "get" ? "1.00" : (bare[op].p50 / bare.get.p50).toFixed(2), "", ""]),
      ...endpoints.map((e) => [e.name, ms(e.stats.p50), ms(e.stats.p95), opSummaryText(e.ops), ms(e.floorMs), e.ratioToGet.toFixed(2), ms(e.budgetMs), verdict(e.pass)]),
    ],
  );
  say(`bare: ${2 * CALLS} calls of each, before and after the endpoints. floor: the endpoint's typical operations, each at the p50 of bare`);
  say(`operations of that kind taken right after each of its calls (same load); x get: endpoint p50 / bare get p50.`);
  const { N, r, p } = password.parameters;
  say(`password hash (deliberate, not budgeted): scrypt N=2^${password.parameters.logN} (${N}) r=${r} p=${p}: p50 ${ms(password.hash.p50)} ms over ${password.hash.n}`);
  say(`sign-in POST with the password (info): p50 ${ms(password.approve.p50)} ms over ${password.approve.n}, ops ${opSummaryText(password.approveOps)}`);
}

function printStorage(endpoints: readonly EndpointResult[], password: PasswordResult): void {
  printTable(
    "(2) Storage operations per request, counted at the store module (r/w/d/l = reads/writes/deletes/lists)",
    ["", "ops r/w/d/l", "max total", "budget", ""],
    [
      ...endpoints.map((e) => [e.name, opSummaryText(e.ops), String(totalOps(e.ops.max)), e.opsBudget ?? "-", verdict(e.opsPass)]),
      ["POST /auth/approve (password)", opSummaryText(password.approveOps), String(totalOps(password.approveOps.max)), "-", "-"],
      ["static pages (sign-in, home, account)", "0/0/0/0", "0", "0", "PASS"],
    ],
  );
  check("2 storage", "static pages", "0 (files on the CDN, no function runs)", "0", true);
  say("static pages are files served without a function, so they cost no storage by construction.");
}

// ---------------------------------------------------------------------------------------
// (3) Cold start per function

const exec = promisify(execFile);

/** Imports one module and prints how long that took; runs in a fresh Node process. */
const IMPORT_RUNNER = `const start = performance.now();
await import(process.argv[2]);
process.stdout.write(String(performance.now() - start));
`;

/** Where the owner's password is checked: its presence in a bundle marks a password-checking function. */
const SIGN_IN_MODULE = "netlify/lib/owner/sign-in.ts";
const HASHING_LIBRARY = "bcryptjs";

interface ColdStart {
  fn: string;
  entryBytes: number;
  /** Chunks the function can reach through import(), loaded only when that code runs. */
  lazyBytes: number;
  /** The biggest contributors to the entry, by package or source file. */
  entryContents: { source: string; bytes: number }[];
  checksPassword: boolean;
  /** Bytes of the hashing library in what a cold start loads (allowed on top of the budget). */
  hashingInEntryBytes: number;
  hashingLazyBytes: number;
  importMs: number;
  importRuns: number[];
  pass: boolean;
}

type Outputs = Metafile["outputs"];

/** The outputs reachable from `entry` through the given kinds of import. */
function reachable(outputs: Outputs, entry: string, kinds: ReadonlySet<string>): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const path = queue.pop()!;
    if (seen.has(path)) continue;
    seen.add(path);
    for (const imported of outputs[path]?.imports ?? []) {
      if (kinds.has(imported.kind) && outputs[imported.path]) queue.push(imported.path);
    }
  }
  return seen;
}

/** Bytes in these outputs per package (node_modules) or per source file. */
function contents(outputs: Outputs, paths: Iterable<string>): Map<string, number> {
  const bySource = new Map<string, number>();
  for (const path of paths) {
    for (const [input, { bytesInOutput }] of Object.entries(outputs[path]?.inputs ?? {})) {
      if (bytesInOutput === 0) continue;
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
      const source = pkg ?? relative(ROOT, resolve(input));
      bySource.set(source, (bySource.get(source) ?? 0) + bytesInOutput);
    }
  }
  return bySource;
}

/** Imports each module IMPORT_RUNS times, each in a fresh Node process. Round-robin across the
 * modules, so that a busy moment on the machine weighs on all of them alike. */
async function importTimes(runner: string, entries: readonly string[]): Promise<number[][]> {
  const times = entries.map((): number[] => []);
  for (let run = 0; run < IMPORT_RUNS; run++) {
    for (const [i, entry] of entries.entries()) {
      // A bare environment: the top level of a function must need none.
      const { stdout } = await exec(process.execPath, [runner, pathToFileURL(entry).href], { env: { PATH: process.env.PATH ?? "" }, timeout: 20_000 });
      times[i]!.push(Number(stdout));
    }
  }
  return times;
}

const STATIC = new Set(["import-statement"]);
const ANY_IMPORT = new Set(["import-statement", "dynamic-import"]);

type Bundle = Omit<ColdStart, "importMs" | "importRuns" | "pass"> & { entry: string };

async function bundleFunction(fn: string, dir: string): Promise<Bundle> {
  const outdir = join(dir, fn);
  // Splitting: what a function imports lazily with import() lands in chunks of its own.
  const { metafile } = await esbuild({
    entryPoints: { [fn]: join(ROOT, "netlify", "functions", `${fn}.ts`) },
    bundle: true,
    minify: true,
    platform: "node",
    format: "esm",
    target: "node20",
    mainFields: ["module", "main"],
    splitting: true,
    outdir,
    outExtension: { ".js": ".mjs" },
    metafile: true,
    logLevel: "error",
  });
  const { outputs } = metafile;
  const entry = Object.keys(outputs).find((path) => resolve(path) === resolve(outdir, `${fn}.mjs`));
  if (!entry) throw new Error(`no entry chunk for ${fn}`);
  // esbuild also writes chunks for import()s in code it shook out: only what is reachable counts.
  const loaded = reachable(outputs, entry, STATIC);
  const lazy = [...reachable(outputs, entry, ANY_IMPORT)].filter((path) => !loaded.has(path));
  const bytesOf = (paths: Iterable<string>) => [...paths].reduce((sum, path) => sum + (outputs[path]?.bytes ?? 0), 0);
  const entryContents = contents(outputs, loaded);
  const checksPassword = [...contents(outputs, [...loaded, ...lazy]).keys()].includes(SIGN_IN_MODULE);
  return {
    fn,
    entry: resolve(entry),
    entryBytes: bytesOf(loaded),
    lazyBytes: bytesOf(lazy),
    entryContents: [...entryContents].map(([source, bytes]) => ({ source, bytes })).sort((a, b) => b.bytes - a.bytes).slice(0, 10),
    checksPassword,
    hashingInEntryBytes: checksPassword ? (entryContents.get(HASHING_LIBRARY) ?? 0) : 0,
    hashingLazyBytes: checksPassword ? (contents(outputs, lazy).get(HASHING_LIBRARY) ?? 0) : 0,
  };
}

function judgeColdStart({ entry: _entry, ...bundle }: Bundle, importRuns: number[]): ColdStart {
  const importMs = stats(importRuns).p50;
  const sizeBudget = BUDGET.entryBytes + bundle.hashingInEntryBytes;
  const sizePass = check("3 cold start", `${bundle.fn} entry size`, `${kb(bundle.entryBytes)} KB`, `<= ${kb(sizeBudget)} KB`, bundle.entryBytes <= sizeBudget);
  const timePass = check("3 cold start", `${bundle.fn} import`, `${ms(importMs)} ms`, `<= ${BUDGET.importMs} ms`, importMs <= BUDGET.importMs);
  return { ...bundle, importMs, importRuns, pass: sizePass && timePass };
}

interface ColdStarts {
  /** Importing an empty module the same way: what Node itself costs. */
  baselineMs: number;
  functions: ColdStart[];
}

async function runColdStarts(): Promise<ColdStarts> {
  const dir = await mkdtemp(join(tmpdir(), "indieauth-bench-cold-"));
  try {
    const runner = join(dir, "import-runner.mjs");
    const empty = join(dir, "empty.mjs");
    await writeFile(runner, IMPORT_RUNNER);
    await writeFile(empty, "export {};\n");
    const names = (await readdir(join(ROOT, "netlify", "functions"))).filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3)).sort();
    const bundles: Bundle[] = [];
    for (const fn of names) bundles.push(await bundleFunction(fn, dir));
    const [baseline, ...runs] = await importTimes(runner, [empty, ...bundles.map((b) => b.entry)]);
    return { baselineMs: stats(baseline!).p50, functions: bundles.map((bundle, i) => judgeColdStart(bundle, runs[i]!)) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function printColdStarts({ baselineMs, functions }: ColdStarts): void {
  printTable(
    `(3) Cold start: esbuild minified ESM bundle, median import over ${IMPORT_RUNS} fresh node processes (budget ${kb(BUDGET.entryBytes)} KB, ${BUDGET.importMs} ms; KB = 1000 B)`,
    ["function", "entry KB", "lazy KB", "import ms", "min-max ms", "password", ""],
    [
      ...functions.map((r) => [
        r.fn,
        kb(r.entryBytes),
        kb(r.lazyBytes),
        ms(r.importMs),
        `${ms(Math.min(...r.importRuns))}-${ms(Math.max(...r.importRuns))}`,
        r.checksPassword ? "checks" : "",
        verdict(r.pass),
      ]),
      ["(an empty module)", "", "", ms(baselineMs), "", "", ""],
    ],
  );
  for (const r of functions.filter((c) => c.checksPassword)) {
    const where = r.hashingInEntryBytes > 0 ? `${kb(r.hashingInEntryBytes)} KB in the entry (allowed on top)` : r.hashingLazyBytes > 0 ? `${kb(r.hashingLazyBytes)} KB in a lazy chunk, loaded only for a bcrypt PASSWORD_HASH` : "not bundled";
    say(`${r.fn} checks the password: scrypt is node:crypto (nothing bundled); ${HASHING_LIBRARY}: ${where}`);
  }
  for (const r of functions.filter((c) => !c.pass)) {
    say(`${r.fn} entry, largest parts: ${r.entryContents.slice(0, 5).map((c) => `${c.source} ${kb(c.bytes)}`).join(", ")}`);
  }
}

// ---------------------------------------------------------------------------------------
// (4) Scale

interface ScaleResult {
  small: { grants: number; stats: Stats };
  large: { grants: number; stats: Stats; seedSeconds: number };
  ratio: number;
  concurrent: { calls: number; ok: number; wallMs: number; stats: Stats; failures: string[] };
}

function introspectionRequest(token: string): Request {
  return post("/introspect", {}, { Authorization: `Bearer ${token}` });
}

async function introspectOnce(rt: Runtime, token: string): Promise<{ ms: number; ok: boolean; detail: string }> {
  const req = introspectionRequest(token);
  const start = performance.now();
  const response = await handleTokenVerification(req, rt, { readBody: true });
  const elapsed = performance.now() - start;
  const body = (await response.json()) as { active?: unknown };
  return { ms: elapsed, ok: response.status === 200 && body.active === true, detail: `${response.status} ${JSON.stringify(body)}` };
}

async function runScale(env: Env): Promise<ScaleResult> {
  const small = benchRuntime(env, "bench-scale-small");
  const large = benchRuntime(env, "bench-scale-large");
  const smallTokens = (await issueGrants(small, BUDGET.scaleSmall)).map((t) => t.accessToken);
  const seedStart = performance.now();
  const largeTokens = (await issueGrants(large, BUDGET.scaleLarge)).map((t) => t.accessToken);
  const seedSeconds = (performance.now() - seedStart) / 1000;

  // Alternating rounds, so that drift on the machine weighs on both sides alike.
  const rounds = 5;
  const perRound = Math.ceil(CALLS / rounds);
  const smallTimes: number[] = [];
  const largeTimes: number[] = [];
  let call = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [b, tokens, times] of [[small, smallTokens, smallTimes], [large, largeTokens, largeTimes]] as const) {
      for (let i = 0; i < WARMUP / rounds + perRound; i++) {
        // A stride through the tokens: the large store is read all over, not at one hot key.
        const result = await introspectOnce(b.rt, tokens[(call++ * 7919) % tokens.length]!);
        if (!result.ok) throw new Error(`introspection at scale: ${result.detail}`);
        if (i >= WARMUP / rounds) times.push(result.ms);
      }
    }
  }
  const smallStats = stats(smallTimes);
  const largeStats = stats(largeTimes);
  const ratio = largeStats.p50 / smallStats.p50;
  check("4 scale", `introspection p50, ${BUDGET.scaleLarge} vs ${BUDGET.scaleSmall} grants`, ratio.toFixed(2), `<= ${BUDGET.scaleRatio}`, ratio <= BUDGET.scaleRatio);

  const wallStart = performance.now();
  const concurrent = await Promise.all(largeTokens.slice(0, BUDGET.concurrent).map((token) => introspectOnce(large.rt, token).catch((error: unknown) => ({ ms: Number.NaN, ok: false, detail: String(error) }))));
  const wallMs = performance.now() - wallStart;
  const ok = concurrent.filter((r) => r.ok).length;
  check("4 scale", `${BUDGET.concurrent} concurrent introspections`, `${ok} succeeded`, `all ${BUDGET.concurrent}`, ok === BUDGET.concurrent);
  return {
    small: { grants: BUDGET.scaleSmall, stats: smallStats },
    large: { grants: BUDGET.scaleLarge, stats: largeStats, seedSeconds },
    ratio,
    concurrent: {
      calls: BUDGET.concurrent,
      ok,
      wallMs,
      stats: stats(concurrent.filter((r) => r.ok).map((r) => r.ms)),
      failures: concurrent.filter((r) => !r.ok).slice(0, 5).map((r) => r.detail),
    },
  };
}

function printScale(scale: ScaleResult): void {
  const { small, large, concurrent } = scale;
  printTable(
    `(4) Scale: POST /introspect (budget: p50 ratio <= ${BUDGET.scaleRatio}; ${BUDGET.concurrent} concurrent all succeed)`,
    ["", "p50 ms", "p95 ms", "calls", ""],
    [
      [`${small.grants} grants stored`, ms(small.stats.p50), ms(small.stats.p95), String(small.stats.n), ""],
      [`${large.grants} grants stored`, ms(large.stats.p50), ms(large.stats.p95), String(large.stats.n), ""],
      ["ratio large / small", scale.ratio.toFixed(2), "", "", verdict(scale.ratio <= BUDGET.scaleRatio)],
      [`${concurrent.calls} at once (per call)`, ms(concurrent.stats.p50), ms(concurrent.stats.p95), `${concurrent.ok}/${concurrent.calls} ok`, verdict(concurrent.ok === concurrent.calls)],
    ],
  );
  say(`seeding ${large.grants} grants took ${large.seedSeconds.toFixed(1)} s (${SEED_CONCURRENCY} at a time); the ${concurrent.calls} concurrent calls took ${ms(concurrent.wallMs)} ms wall, max ${ms(concurrent.stats.max)} ms`);
  for (const failure of concurrent.failures) say(`  failed: ${failure}`);
}

// ---------------------------------------------------------------------------------------
// (5) The sign-in page

interface PageResource {
  url: string;
  kind: string;
  bytes: number;
  gzipBytes: number;
  sameOrigin: boolean;
}

interface SignInPageResult {
  totalBytes: number;
  totalGzipBytes: number;
  resources: PageResource[];
  otherOrigins: string[];
  /** Absolute URLs in the scripts that are not fetched (namespaces, messages), for the record. */
  otherUrlStrings: string[];
}

/** Resources the HTML makes the browser load (not links it navigates to). */
function htmlReferences(html: string): { url: string; kind: string }[] {
  const found: { url: string; kind: string }[] = [];
  for (const tag of html.match(/<(script|img|link|iframe|source|video|audio|embed|object)\b[^>]*>/gi) ?? []) {
    const name = /^<(\w+)/.exec(tag)![1]!.toLowerCase();
    const rel = /\brel\s*=\s*["']?([^"'>]+)/i.exec(tag)?.[1]?.toLowerCase() ?? "";
    // rel=me and friends are links, not loads.
    if (name === "link" && !/stylesheet|icon|preload|modulepreload|manifest|prefetch/.test(rel)) continue;
    for (const attribute of tag.matchAll(/\b(src|href|data|poster)\s*=\s*["']([^"']+)["']/gi)) {
      found.push({ url: attribute[2]!, kind: name === "link" ? rel : name });
    }
  }
  return found;
}

function cssReferences(css: string): string[] {
  const urls = [...css.matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)/gi)].map((m) => m[1]!);
  const imports = [...css.matchAll(/@import\s+["']([^"']+)["']/gi)].map((m) => m[1]!);
  return [...urls, ...imports].filter((url) => !url.startsWith("data:") && !url.startsWith("#"));
}

/** Absolute URLs the script requests: fetch, beacons, sockets, imports. */
function scriptRequests(js: string): { fetched: string[]; relativeImports: string[]; otherUrls: string[] } {
  const fetched = [
    ...js.matchAll(/\b(?:fetch|sendBeacon|WebSocket|EventSource|import|importScripts|open)\s*\(\s*(?:["'][A-Z]+["']\s*,\s*)?["'`]((?:https?:|wss?:)?\/\/[^"'`]+)/g),
  ].map((m) => m[1]!);
  const relativeImports = [...js.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]!);
  const otherUrls = [...new Set([...js.matchAll(/["'`](https?:\/\/[^"'`\s]+)/g)].map((m) => m[1]!))].filter((url) => !fetched.includes(url));
  return { fetched, relativeImports, otherUrls };
}

async function runSignInPage(env: Env): Promise<SignInPageResult> {
  const outDir = await mkdtemp(join(tmpdir(), "indieauth-bench-site-"));
  try {
    await buildSite(env, outDir);
    const pageUrl = new URL(SIGN_IN_PAGE, BASE);
    const origin = pageUrl.origin;
    const resources: PageResource[] = [];
    const otherUrlStrings: string[] = [];
    const seen = new Set<string>();

    /** Counts a resource once; returns its text for scanning, or null (seen, or elsewhere). */
    const add = async (url: URL, kind: string): Promise<string | null> => {
      if (seen.has(url.href)) return null;
      seen.add(url.href);
      if (url.origin !== origin) {
        resources.push({ url: url.href, kind, bytes: 0, gzipBytes: 0, sameOrigin: false });
        return null;
      }
      // What the CDN serves for a folder URL is its index.html.
      const file = join(outDir, decodeURIComponent(url.pathname), url.pathname.endsWith("/") ? "index.html" : "");
      const body = await readFile(file).catch(() => null);
      if (!body) throw new Error(`the sign-in page refers to ${url.pathname}, which the build did not make`);
      resources.push({ url: url.pathname, kind, bytes: body.length, gzipBytes: gzipSync(body).length, sameOrigin: true });
      return body.toString("utf8");
    };

    const html = (await add(pageUrl, "html"))!;
    for (const ref of htmlReferences(html)) {
      const url = new URL(ref.url, pageUrl);
      const body = await add(url, ref.kind);
      if (body === null) continue;
      if (url.pathname.endsWith(".css")) for (const css of cssReferences(body)) await add(new URL(css, url), "css url()");
      if (url.pathname.endsWith(".js")) await followScript(url, body, add, otherUrlStrings);
    }
    const own = resources.filter((r) => r.sameOrigin);
    const totalBytes = own.reduce((sum, r) => sum + r.bytes, 0);
    const totalGzipBytes = own.reduce((sum, r) => sum + r.gzipBytes, 0);
    const otherOrigins = resources.filter((r) => !r.sameOrigin).map((r) => `${r.kind}: ${r.url}`);
    check("5 sign-in page", "HTML+CSS+JS+icon", `${kb(totalBytes)} KB`, `<= ${kb(BUDGET.signInPageBytes)} KB`, totalBytes <= BUDGET.signInPageBytes);
    check("5 sign-in page", "requests to other origins", otherOrigins.length === 0 ? "none" : otherOrigins.join(", "), "none", otherOrigins.length === 0);
    return { totalBytes, totalGzipBytes, resources, otherOrigins, otherUrlStrings };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/** A script's own requests: chunks it imports (counted), absolute URLs it fetches (flagged). */
async function followScript(
  url: URL,
  js: string,
  add: (url: URL, kind: string) => Promise<string | null>,
  otherUrlStrings: string[],
): Promise<void> {
  const { fetched, relativeImports, otherUrls } = scriptRequests(js);
  for (const target of fetched) await add(new URL(target, url), "script fetch");
  otherUrlStrings.push(...otherUrls);
  for (const chunk of relativeImports) {
    const chunkUrl = new URL(chunk, url);
    const body = await add(chunkUrl, "script chunk");
    if (body !== null) await followScript(chunkUrl, body, add, otherUrlStrings);
  }
}

function printSignInPage(page: SignInPageResult): void {
  printTable(
    `(5) Sign-in page ${SIGN_IN_PAGE} (budget ${kb(BUDGET.signInPageBytes)} KB uncompressed, no request to another origin)`,
    ["resource", "kind", "KB", "gzip KB", "origin"],
    [
      ...page.resources.map((r) => [r.url, r.kind, r.sameOrigin ? kb(r.bytes) : "-", r.sameOrigin ? kb(r.gzipBytes) : "-", r.sameOrigin ? "same" : "OTHER"]),
      ["total (same origin)", "", kb(page.totalBytes), kb(page.totalGzipBytes), verdict(page.totalBytes <= BUDGET.signInPageBytes)],
    ],
  );
  say(`requests to other origins: ${page.otherOrigins.length === 0 ? "none" : page.otherOrigins.join(", ")}  ${verdict(page.otherOrigins.length === 0)}`);
  if (page.otherUrlStrings.length > 0) say(`absolute URL strings in the scripts not used for a request (not counted): ${page.otherUrlStrings.join(", ")}`);
}

// ---------------------------------------------------------------------------------------
// The run

function machine(): Record<string, string | number> {
  const cpu = cpus();
  return {
    node: process.version,
    platform: `${platform()} ${release()} ${arch()}`,
    cpuModel: cpu[0]?.model ?? "unknown",
    cores: cpu.length,
    memoryGB: Math.round(totalmem() / 2 ** 30),
    // Other work on the machine moves every timing: recorded so that a reader can tell.
    loadAverage1mAtStart: loadavg()[0] ?? 0,
  };
}

async function main(): Promise<number> {
  const started = performance.now();
  const info = machine();
  say(`IndieAuth benchmark: node ${info.node}, ${info.cpuModel}, ${info.cores} cores, ${info.platform}, load ${Number(info.loadAverage1mAtStart).toFixed(2)}`);

  const blobs = await startLocalBlobs();
  let document: Record<string, unknown>;
  try {
    const env = await benchEnv();
    const core = benchRuntime(env, "bench");
    const account = benchRuntime(env, "bench-account");
    // The bare operations move a record of a grant's real size.
    const [typical] = await issueGrants(core, 1);
    const reference = await bareBlobs(JSON.stringify(typical!.grant));
    const { bare, endpoints } = await runEndpoints(core, account, reference);
    const password = await measurePassword(benchRuntime(env, "bench-password"), reference);
    printEndpoints(bare, endpoints, password);
    printStorage(endpoints, password);

    const cold = await runColdStarts();
    printColdStarts(cold);

    const scale = await runScale(env);
    printScale(scale);

    const page = await runSignInPage(env);
    printSignInPage(page);

    document = {
      generatedAt: new Date().toISOString(),
      machine: info,
      settings: { calls: CALLS, warmup: WARMUP, importRuns: IMPORT_RUNS, kilobyte: KB },
      budgets: BUDGET,
      bareOperations: bare,
      endpoints,
      password,
      coldStart: cold,
      scale,
      signInPage: page,
    };
  } finally {
    await blobs.stop();
  }

  const misses = checks.filter((c) => !c.pass);
  const seconds = (performance.now() - started) / 1000;
  const loadAtEnd = loadavg()[0] ?? 0;
  Object.assign(document, { checks, misses, seconds, loadAverage1mAtEnd: loadAtEnd });
  await mkdir(dirname(OUTPUT), { recursive: true });
  await writeFile(OUTPUT, `${JSON.stringify(document, null, 2)}\n`);

  if (jsonOnly) {
    console.log(JSON.stringify(document, null, 2));
  } else {
    say();
    for (const miss of misses) say(`MISS [${miss.section}] ${miss.subject}: ${miss.measured} (budget ${miss.budget})`);
    if (loadAtEnd > cpus().length / 2) say(`note: load average ${loadAtEnd.toFixed(2)} on ${cpus().length} cores at the end: other work was running, timings are noisy.`);
    say(`bench: ${checks.length - misses.length}/${checks.length} budgets met, ${misses.length} missed, in ${seconds.toFixed(0)} s; numbers in ${relative(process.cwd(), OUTPUT)}`);
  }
  return misses.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("bench failed:", error);
    process.exit(1);
  },
);
