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
  /** The grant and the owner's revocations record, read in parallel: one round trip. */
  verificationReads: 2,
  verificationWrites: 1,
  /** The code, its used marker, the grant and its app's change (the summary is folded after
   * the answer: neither timed nor counted, as all work handed to waitUntil). */
  redemptionOps: 4,
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

/** The owner's console: at 10,000 grants within this many times the 10-grant p50, and at most
 * this many storage operations per load (revoke-all too). */
export const OWNER_BUDGET = { ratio: 2, operations: 50 } as const;

export const jsonOnly = process.argv.includes("--json-only");

/** The sections, by the names `--only` takes. */
export const SECTIONS = ["endpoints", "cold-start", "scale", "owner", "sign-in-page", "parse-cost", "resource", "burst"] as const;
export type Section = (typeof SECTIONS)[number];

/** `--only cold-start[,owner...]`: those sections alone (null: all of them, the default). */
export function onlySections(argv: readonly string[] = process.argv): Section[] | null {
  const at = argv.indexOf("--only");
  if (at < 0) return null;
  const names = (argv[at + 1] ?? "").split(",").filter(Boolean);
  const unknown = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0) throw new Error(`--only takes ${SECTIONS.join(", ")} (comma-separated); got "${argv[at + 1] ?? ""}"`);
  return names as Section[];
}
