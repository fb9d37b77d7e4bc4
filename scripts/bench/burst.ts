// (9) Bursts under `netlify dev`, what `npm start` runs: BURST requests sent at once to one
// local server, each answered in a worker thread of its own that netlify-cli starts for it
// (with the local Blobs server in netlify-cli's own thread). Token checks (POST /introspect),
// authorization requests (GET /auth), and beside them the floor: a function that only makes the
// two Blobs reads a token check makes, in the same server. Reported, not judged: what counts
// is the product beside the floor on the same machine at the same moment.
import { createHash, randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { build } from "esbuild";
import { TEST_PASSWORD } from "../../test/helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../../test/helpers/netlify-dev.ts";
import { printTable, say } from "./report.ts";
import { ROOT } from "./settings.ts";
import { stats, type Stats } from "./stats.ts";

export const BURST = 200;
/** What is sent, as the doc's table names it: the floor first, then the product's. */
export const BURST_CASES = [
  "The floor: a function making two Blobs reads",
  "Token checks (`POST /introspect`, an active token)",
  "Authorization requests (`GET /auth`, answered 303)",
] as const;
const CLIENT_ID = "http://127.0.0.1:5173/";
const REDIRECT_URI = "http://127.0.0.1:5173/callback";
export const FLOOR_FUNCTION = "bench-floor";
/** The floor: two strong Blobs reads in parallel (a grant and the revocations, as a token check). */
const FLOOR_SOURCE = `import { getStore } from "@netlify/blobs";
export default async () => {
  const store = getStore({ name: process.env.INDIEAUTH_STORE, consistency: "strong" });
  const [grant, revocations] = await Promise.all([store.get("grants/floor", { type: "json" }), store.get("owner/revocations", { type: "json" })]);
  return Response.json({ grant, revocations });
};
`;

export interface BurstCase {
  name: string;
  sent: number;
  /** Answers by status ("error": no answer at all). */
  statuses: Record<string, number>;
  /** As expected: an active token, the redirect to the sign-in page, the floor's 200. */
  ok: number;
  /** From the first request sent to the last answer. */
  wallMs: number;
  /** Each answer's time, from its request's sending. */
  answered: Stats;
}

export interface BurstResult {
  method: string;
  cases: BurstCase[];
}

/** The floor function, bundled as the server's own functions are (one module, its package inside). */
async function writeFloor(functions: string): Promise<void> {
  const folder = join(functions, FLOOR_FUNCTION);
  await mkdir(folder, { recursive: true });
  await build({
    stdin: { contents: FLOOR_SOURCE, resolveDir: ROOT, loader: "js" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: true,
    outfile: join(folder, "handler.mjs"),
    logLevel: "silent",
    banner: { js: 'import{createRequire as __r}from"node:module";const require=__r(import.meta.url);' },
  });
  await writeFile(
    join(folder, `${FLOOR_FUNCTION}.mjs`),
    `export { default } from "./handler.mjs";\nexport const config = {"nodeBundler":"none","includedFiles":["handler.mjs"]};\n`,
  );
}

const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

function authorizationUrl(server: NetlifyDev, challenge: string): URL {
  const url = new URL("/auth", server.baseUrl);
  const params = {
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    state: "s",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "create",
    me: server.env.ME!,
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url;
}

/** An access token, through the server's own pages' requests (one sign-in with the password). */
async function signIn(server: NetlifyDev): Promise<string> {
  const verifier = randomBytes(32).toString("base64url");
  const start = await fetch(authorizationUrl(server, s256(verifier)), { redirect: "manual" });
  const request = new URLSearchParams(start.headers.get("location")?.split("#")[1] ?? "").get("request");
  if (start.status !== 303 || !request) throw new Error(`GET /auth answered ${start.status}`);
  const approved = await fetch(`${server.baseUrl}/auth/approve`, {
    method: "POST",
    body: new URLSearchParams({ request, decision: "approve", password: TEST_PASSWORD, scope: "create" }),
    redirect: "manual",
    headers: { Origin: server.baseUrl, "Sec-Fetch-Site": "same-origin" },
  });
  const code = new URL(approved.headers.get("location") ?? "http://x/").searchParams.get("code");
  if (!code) throw new Error(`POST /auth/approve answered ${approved.status}`);
  const token = await fetch(`${server.baseUrl}/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    }),
  });
  const body = (await token.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`POST /token answered ${token.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Sends `count` requests at once; each answer is judged by `expected`. */
async function burst(
  name: string,
  count: number,
  send: () => Promise<Response>,
  expected: (response: Response) => Promise<boolean>,
): Promise<BurstCase> {
  const started = performance.now();
  const answers = await Promise.all(
    Array.from({ length: count }, async () => {
      const sent = performance.now();
      try {
        const response = await send();
        const ok = await expected(response);
        return { status: String(response.status), ok, ms: performance.now() - sent };
      } catch {
        return { status: "error", ok: false, ms: performance.now() - sent };
      }
    }),
  );
  const statuses: Record<string, number> = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  return {
    name,
    sent: count,
    statuses,
    ok: answers.filter((a) => a.ok).length,
    wallMs: performance.now() - started,
    answered: stats(answers.map((a) => a.ms)),
  };
}

export async function runBurst(count = BURST): Promise<BurstResult> {
  const server = await startNetlifyDev({}, { moreFunctions: writeFloor });
  try {
    const token = await signIn(server);
    const floorUrl = `${server.baseUrl}/.netlify/functions/${FLOOR_FUNCTION}`;
    const [floor, checks, authorizations] = BURST_CASES;
    const cases: [string, () => Promise<Response>, (r: Response) => Promise<boolean>][] = [
      [floor, () => fetch(floorUrl), async (r) => (await r.text(), r.status === 200)],
      [
        checks,
        () => fetch(`${server.baseUrl}/introspect`, { method: "POST", headers: { Authorization: `Bearer ${token}` } }),
        async (r) => r.status === 200 && ((await r.json()) as { active?: boolean }).active === true,
      ],
      [
        authorizations,
        () => fetch(authorizationUrl(server, s256(randomBytes(32).toString("base64url"))), { redirect: "manual" }),
        async (r) => (await r.text(), r.status === 303),
      ],
    ];
    const results: BurstCase[] = [];
    for (const [name, send, expected] of cases) results.push(await burst(name, count, send, expected));
    return {
      method: `${count} requests sent at once to one netlify dev (offline), the functions built as they deploy; answers counted by status`,
      cases: results,
    };
  } finally {
    await server.stop();
  }
}

export function printBurst(result: BurstResult): void {
  printTable(
    `(9) Bursts under netlify dev: ${result.cases[0]?.sent ?? BURST} requests at once (reported, not judged)`,
    ["", "as expected", "answers by status", "wall s", "p50 s", "max s"],
    result.cases.map((c) => [
      c.name,
      `${c.ok}/${c.sent}`,
      Object.entries(c.statuses)
        .map(([s, n]) => `${n} x ${s}`)
        .join(", "),
      (c.wallMs / 1000).toFixed(1),
      (c.answered.p50 / 1000).toFixed(1),
      (c.answered.max / 1000).toFixed(1),
    ]),
  );
  say(result.method);
}
