// What the bench measures against: call counts, the budgets, and where the numbers go.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHROME_UA, CLIENT_IP } from "../../test/helpers/requests.ts";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const OUTPUT = join(ROOT, "test", "output", "bench.json");

export const IP = CLIENT_IP;
export const USER_AGENT = CHROME_UA;

export const CALLS = 500;
export const WARMUP = 50;
export const TOTAL_CALLS = WARMUP + CALLS;
export const PASSWORD_CALLS = 10;
export const IMPORT_RUNS = 15;
export const SEED_CONCURRENCY = 16;
/** 1 KB = 1000 bytes: the stricter reading of the budgets. */
export const KB = 1000;

export const BUDGET = {
  ownCpuMs: 1,
  /** Judged: a deployed function's cold import may cost at most this much more CPU time than the
   * floor that imports @netlify/blobs and node:crypto (every function needs crypto for its first
   * request), both measured as CPU time in the child around the import, in the same round-robin. */
  coldImportOwnCpuMs: 3,
  /** Our code plus the packages a function's zip ships (Netlify's bootstrap not counted). */
  shippedBytes: 600 * KB,
  scaleSmall: 10,
  scaleLarge: 10_000,
  scaleRatio: 1.2,
  concurrent: 200,
  signInPageBytes: 30 * KB,
  /** Reading the worst client page discovery can fetch. */
  parseMs: 100,
} as const;

/** An endpoint's storage: the round trips a request waits for one after another (the longest
 * chain of operations each begun after the one before it settled: critical-path.ts) and its
 * operations in all, at the median call. Each budget is the least the design needs, and says
 * why; `above`, where there is one, names what makes the code do more (printed on a miss, never
 * a reason to raise the budget). */
export interface StorageBudget {
  roundTrips: number;
  operations: number;
  why: string;
  above?: string;
}

/** Why a code's use waits for its read (POST /auth and POST /token alike). */
const USE_AFTER_READ =
  "the used-up marker is written only once the code's record has been read: the marker carries the code's expiry and, for a token redemption, whether every check passed (a redemption cut short may then be finished by its retry)";

export const STORAGE_BUDGET = {
  none: { roundTrips: 0, operations: 0, why: "answered from the configuration alone" },
  authorizationRequest: {
    roundTrips: 1,
    operations: 2,
    why: "what the sign-in page offers: the app's earlier approval and whether the owner has passkeys, read at once",
  },
  requestCheck: { roundTrips: 0, operations: 0, why: "the request's signature and age are checked; nothing is stored" },
  sessionApproval: {
    roundTrips: 2,
    operations: 4,
    why: "the app's approval, the session and its last-seen record read at once; then the code written if new",
  },
  doubleClick: {
    roundTrips: 3,
    operations: 6,
    why: "as a first approval, the write-if-new refused; then the code and its used-up marker read at once (the same code again only while unused)",
  },
  profileRedemption: {
    roundTrips: 1,
    operations: 2,
    why: "the code read and used up (its used-up marker written) at once",
    above: USE_AFTER_READ,
  },
  codeRedemption: {
    roundTrips: 2,
    operations: 4,
    why: "the code read and used up at once; then the grant and its app's change written at once",
    above: USE_AFTER_READ,
  },
  refresh: {
    roundTrips: 2,
    operations: 3,
    why: "the grant and the owner's revocations read at once; then the rotated grant written against the version read",
  },
  tokenCheck: { roundTrips: 1, operations: 2, why: "the grant and the owner's revocations, read at once" },
  revocation: {
    roundTrips: 2,
    operations: 2,
    why: "the grant read (whose token it is, which app); then marked revoked",
  },
} as const satisfies Record<string, StorageBudget>;

/** Section (10): the storage latency added to every request, and the sign-ins timed. */
export const USER_FELT = { latencyMs: 30, runs: 7 } as const;

/** The packages no function may load at cold start, only in a request that needs them. */
export const WATCHED_PACKAGES: readonly string[] = [
  "@simplewebauthn/server",
  "microformats-parser",
  "parse5",
  "bcryptjs",
  "jose",
  "ipaddr.js",
  "cookie",
];

/** The owner's console: at 10,000 grants within this many times the 10-grant p50, and at most
 * this many storage operations per load (revoke-all too). */
export const OWNER_BUDGET = { ratio: 2, operations: 50 } as const;

export const jsonOnly = process.argv.includes("--json-only");

/** The sections, by the names `--only` takes. */
export const SECTIONS = [
  "endpoints",
  "cold-start",
  "scale",
  "owner",
  "sign-in-page",
  "parse-cost",
  "resource",
  "user-felt",
  "burst",
] as const;
export type Section = (typeof SECTIONS)[number];

/** `--only cold-start[,owner...]`: those sections alone (null: all of them, the default). */
export function onlySections(argv: readonly string[] = process.argv): Section[] | null {
  const at = argv.indexOf("--only");
  if (at < 0) return null;
  const names = (argv[at + 1] ?? "").split(",").filter(Boolean);
  const unknown = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0)
    throw new Error(`--only takes ${SECTIONS.join(", ")} (comma-separated); got "${argv[at + 1] ?? ""}"`);
  return names as Section[];
}
