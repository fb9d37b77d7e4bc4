// Every value a Cookie header gives one name: a browser sends a cookie once for each path and
// domain it was set for, and another host of the same site can set one of the same name on the
// parent domain (cookie tossing, docs/security.md). Reading only the first value would let such a
// cookie hide ours, so readers check each value in turn and take the one that verifies.
import { importCommonJs } from "./commonjs.ts";
import { loadOnce } from "./load-once.ts";

// Loaded with the first cookie read (a CommonJS package: not at every cold start).
const cookies = loadOnce(() => importCommonJs(() => import("cookie")));

/** Longest Cookie header read at all (browsers send a few KB; a longer one is refused whole). */
const COOKIE_HEADER_LIMIT = 8192;

/** The values of every cookie named `name` in the header, in the order sent. */
export async function cookieValues(header: string | null, name: string): Promise<string[]> {
  if (!header || header.length > COOKIE_HEADER_LIMIT || !header.includes(`${name}=`)) return [];
  const { parse } = await cookies();
  const values: string[] = [];
  // Each pair parsed on its own with the library (which keeps only the first of a name).
  for (const pair of header.split(";")) {
    if (!pair.includes(`${name}=`)) continue;
    try {
      const value = parse(pair)[name];
      if (value) values.push(value);
    } catch {
      // A malformed pair is no value.
    }
  }
  return values;
}
