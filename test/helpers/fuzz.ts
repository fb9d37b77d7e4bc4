// Shared pieces of the fuzz suite (test/adversarial/fuzz/): the seed, hostile value
// generators, request building, a hang detector, and the checks every answer must pass.
// Everything is generated from one fixed seed so that a failure is reproducible; set
// FUZZ_SEED to explore other inputs, and FUZZ_SCALE (e.g. 10) for a longer run.
import bcrypt from "bcryptjs";
import fc, { type Arbitrary, type Parameters } from "fast-check";
import { expect } from "vitest";
import type { Config, Env } from "../../netlify/lib/platform/config.ts";
import type { Runtime } from "../../netlify/lib/platform/runtime.ts";
import { TEST_PASSWORD } from "./env.ts";
import { BASE } from "./requests.ts";
import { testRuntime, type FullRuntime, type TestRuntime } from "./runtime.ts";

// ---------------------------------------------------------------------------------------
// Seed, run counts, hang detector

export const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);

/** fc.assert parameters: the fixed seed, and the run count scaled by FUZZ_SCALE. */
export function fuzzRuns<T>(numRuns: number): Parameters<T> {
  return { seed: SEED, numRuns: Math.max(1, Math.round(numRuns * SCALE)) };
}

/** The test name suffix that says how to reproduce a run. */
export function seedNote(numRuns: number): string {
  return `(seed ${SEED}, ${Math.max(1, Math.round(numRuns * SCALE))} runs)`;
}

/** A vitest timeout for a property of `numRuns` runs: generous, since CI machines are slow. */
export function propertyTimeout(numRuns: number, perRunMs = 150): number {
  return 30_000 + Math.round(numRuns * SCALE) * perRunMs;
}

/** No handler may take this long on one request: a hang detector, not a timing assertion. */
export const HANG_MS = 10_000;

/** The handler's answer, or a failure if it has not answered within HANG_MS. */
export async function answered<T>(what: string, work: () => Promise<T> | T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${HANG_MS} ms`)), HANG_MS);
  });
  try {
    return await Promise.race([Promise.resolve().then(work), hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** For synchronous parsers, which a timer cannot interrupt: fails a call that took over a
 * second (a super-linear blow-up), after the fact. */
export function quickly<T>(what: string, work: () => T, limitMs = 1000): T {
  const start = performance.now();
  const result = work();
  const elapsed = performance.now() - start;
  if (elapsed > limitMs) throw new Error(`${what} took ${Math.round(elapsed)} ms`);
  return result;
}

/** Counts what a property's runs led to, so that a test can check its generators reach the
 * interesting answers (not only the first refusal); FUZZ_STATS=1 prints the counts. */
export class Outcomes {
  readonly counts = new Map<string, number>();
  constructor(readonly name: string) {}

  add(outcome: string | number): void {
    const key = String(outcome);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Fails unless every one of these outcomes happened at least once. */
  expectReached(outcomes: readonly (string | number)[]): void {
    if (process.env.FUZZ_STATS)
      console.log(`${this.name}: ${JSON.stringify(Object.fromEntries([...this.counts].sort()))}`);
    for (const outcome of outcomes)
      expect(this.counts.has(String(outcome)), `${this.name}: no run led to ${outcome}`).toBe(true);
  }
}

// ---------------------------------------------------------------------------------------
// Runtime

/** The owner's password as a cost-4 bcrypt hash: the production code path (PASSWORD_SECRET
 * accepts bcrypt), but a wrong guess costs a millisecond instead of scrypt's ~100 ms, so that
 * hundreds of generated sign-ins stay fast. */
const CHEAP_PASSWORD_HASH = bcrypt.hashSync(TEST_PASSWORD, 4);

export function fuzzRuntime(options: { env?: Env; discover?: FullRuntime["discover"] } = {}): Promise<TestRuntime> {
  return testRuntime({ ...options, env: { PASSWORD_HASH: CHEAP_PASSWORD_HASH, ...options.env } });
}

/** The configuration of a runtime that is known to be valid. */
export function configOf(rt: Runtime): Config {
  if (!rt.config.ok) throw new Error(`the fuzz runtime is not configured: ${JSON.stringify(rt.config.problems)}`);
  return rt.config.config;
}

/** Clock steps between runs that try passwords: past the global lock (15 minutes) and the
 * per-IP back-off, so that most runs reach the password check instead of the throttle. */
export const PAST_THROTTLE_MS = 16 * 60_000;

// ---------------------------------------------------------------------------------------
// Hostile strings

/** Appears in generated values; an HTML answer must never contain it unescaped. */
export const SCRIPT_MARKER = "<script>fuzz()</script>";

export const PERCENT_JUNK = [
  "%",
  "%%",
  "%zz",
  "%C0%AF",
  "%c0%ae",
  "%ff%fe",
  "%00",
  "%0d%0a",
  "%2e%2e",
  "%2F",
  "%E2%80%AE",
  "%ED%A0%80",
  "%F0%9F",
  "%u0041",
  "%25",
  "%3",
] as const;

export const MARKERS = [
  SCRIPT_MARKER,
  `"><svg onload=alert(1)>`,
  `' onmouseover='x`,
  "javascript:alert(1)",
  "\r\nSet-Cookie: pwned=1",
  "\u0000",
  "../",
  "..%2f",
  "__proto__",
  "constructor",
  "toString",
  "{}",
  "[]",
  "null",
  "\u202e",
  "\ufeff",
  "\ud800",
  "\udfff",
  "\ud83d\ude00",
  "ｅｘａｍｐｌｅ",
  "xn--",
  "@evil.example",
  "#frag",
  "?",
  "&",
  "=",
  "+",
  " ",
  "\t",
  ";",
  ",",
  '"',
  "\\",
] as const;

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

/** Any code point, now and then half of a surrogate pair. */
const unicodeUnit = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: loneSurrogate },
);

export const unicodeString = fc.string({ unit: unicodeUnit, maxLength: 30 });

/** A short pattern repeated to a length of up to ~100 KB (cut anywhere, even inside a pair). */
export function longString(maxLength = 100_000): Arbitrary<string> {
  return fc
    .tuple(
      fc.oneof(
        fc.string({ minLength: 1, maxLength: 6 }),
        fc.string({ unit: unicodeUnit, minLength: 1, maxLength: 4 }),
        fc.constantFrom(...MARKERS, ...PERCENT_JUNK),
      ),
      fc.integer({ min: 300, max: maxLength }),
    )
    .map(([pattern, length]) => pattern.repeat(Math.ceil(length / pattern.length)).slice(0, length));
}

/** Junk with structure: pieces of plausible values, markers, percent junk and unicode. */
export function hostileString(
  plausible: readonly string[] = [],
  options: { long?: boolean; maxLength?: number } = {},
): Arbitrary<string> {
  const pieces: Arbitrary<string>[] = [
    fc.string({ maxLength: 12 }),
    unicodeString,
    fc.constantFrom(...PERCENT_JUNK),
    fc.constantFrom(...MARKERS),
  ];
  if (plausible.length > 0) pieces.push(fc.constantFrom(...plausible));
  const choices: { weight: number; arbitrary: Arbitrary<string> }[] = [
    { weight: 6, arbitrary: fc.array(fc.oneof(...pieces), { maxLength: 5 }).map((parts) => parts.join("")) },
  ];
  if (plausible.length > 0) choices.push({ weight: 6, arbitrary: fc.constantFrom(...plausible) });
  if (options.long !== false) choices.push({ weight: 1, arbitrary: longString(options.maxLength) });
  return fc.oneof(...choices);
}

/** The arbitrary's value one time in `oneIn`, else null. */
export function sometimes<T>(arbitrary: Arbitrary<T>, oneIn: number): Arbitrary<T | null> {
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
}

/** True one time in `oneIn` (unbiased: fast-check favours small integers otherwise). */
export function chance(oneIn: number): Arbitrary<boolean> {
  return fc.noBias(fc.integer({ min: 1, max: oneIn })).map((n) => n === 1);
}

/** Header values must be ByteStrings without NUL, CR or LF (anything else the Request
 * constructor itself refuses); everything else in Latin-1 goes. */
const headerUnit = fc
  .integer({ min: 1, max: 255 })
  .filter((c) => c !== 10 && c !== 13)
  .map((c) => String.fromCharCode(c));
export const headerString = fc.string({ unit: headerUnit, maxLength: 80 });

/** A hostile string made safe to send as a header value (non-Latin-1 as its UTF-8 bytes,
 * as a server would see them). */
export function asHeaderValue(value: string): string {
  const bytes = Buffer.from(value, "utf8");
  return Array.from(bytes, (b) => (b === 0 || b === 10 || b === 13 ? " " : String.fromCharCode(b))).join("");
}

// ---------------------------------------------------------------------------------------
// Parameters: a valid set, mutated

export type Pairs = [string, string][];

type Mutation =
  | { kind: "drop"; name: string }
  | { kind: "set"; name: string; value: string }
  | { kind: "add"; name: string; value: string }
  | { kind: "duplicate" };

function applyMutation(pairs: Pairs, mutation: Mutation): Pairs {
  switch (mutation.kind) {
    case "drop":
      return pairs.filter(([name]) => name !== mutation.name);
    case "set":
      return pairs.some(([name]) => name === mutation.name)
        ? pairs.map(([name, value]): [string, string] =>
            name === mutation.name ? [name, mutation.value] : [name, value],
          )
        : [...pairs, [mutation.name, mutation.value]];
    case "add":
      return [...pairs, [mutation.name, mutation.value]];
    case "duplicate":
      return pairs.length === 0 ? pairs : [...pairs, pairs[pairs.length - 1]!];
  }
}

/** Starts from a valid parameter set and applies a few mutations: dropped, replaced, added
 * and duplicated parameters, so that most runs get past the first checks. Now and then the
 * set is pure junk instead. */
export function mutatedPairs(
  valid: Arbitrary<Pairs>,
  names: readonly string[],
  values: Arbitrary<string>,
): Arbitrary<Pairs> {
  const name = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...names) },
    { weight: 1, arbitrary: hostileString([], { long: false }) },
  );
  const mutation: Arbitrary<Mutation> = fc.oneof(
    fc.record({ kind: fc.constant("drop" as const), name }),
    fc.record({ kind: fc.constant("set" as const), name, value: values }),
    fc.record({ kind: fc.constant("add" as const), name, value: values }),
    fc.constant({ kind: "duplicate" as const }),
  );
  const mutated = fc
    .tuple(valid, fc.array(mutation, { maxLength: 3 }))
    .map(([pairs, mutations]) => mutations.reduce(applyMutation, pairs));
  const junk = fc.array(fc.tuple(name, values), { maxLength: 8 });
  return fc.oneof({ weight: 5, arbitrary: mutated }, { weight: 1, arbitrary: junk });
}

/** A query or urlencoded body: properly encoded, or written raw (so that `%zz`, `&`, `+` and
 * lone surrogates reach the parser as they are). */
export type FormStyle = "encoded" | "raw";
export const formStyle: Arbitrary<FormStyle> = fc.constantFrom("encoded", "raw");

export function encodeForm(pairs: Pairs, style: FormStyle): string {
  if (style === "encoded") return new URLSearchParams(pairs).toString();
  return pairs.map(([name, value]) => `${name}=${value}`).join("&");
}

// ---------------------------------------------------------------------------------------
// Bodies

export interface BodySpec {
  contentType: string | null;
  bytes: Uint8Array<ArrayBuffer>;
  /** "truthful" sends the real length; a string is sent as is (a lie, or garbage). */
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- the two words the helper reads, beside any string.
  contentLength: "none" | "truthful" | string;
}

const encoder = new TextEncoder();
const utf8 = (text: string): Uint8Array<ArrayBuffer> => encoder.encode(text);

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.concat(parts));
}

/** Byte sequences no UTF-8 decoder accepts: overlong, surrogates, out of range, truncated. */
const BAD_UTF8 = [
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xff],
  [0xfe, 0xff],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0x80],
  [0xf0, 0x9f, 0x98],
].map((b) => new Uint8Array(b));

export const FORM_TYPES = [
  "application/x-www-form-urlencoded",
  "application/x-www-form-urlencoded; charset=utf-8",
  "APPLICATION/X-WWW-FORM-URLENCODED",
  " application/x-www-form-urlencoded ;",
] as const;
export const JSON_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "Application/JSON",
  "application/vnd.api+json",
  "application/merge-patch+json",
] as const;
export const ODD_TYPES = [
  "text/plain",
  "application/xml",
  "image/png",
  "",
  ";",
  ";;;charset=utf-8",
  "multipart/mixed; boundary=x",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  "application/octet-stream",
  "text/html",
  "application/x-www-form-urlencoded-evil",
  "json",
] as const;

export const contentTypeArb: Arbitrary<string | null> = fc.oneof(
  fc.constant(null),
  fc.constantFrom(...FORM_TYPES, ...JSON_TYPES, ...ODD_TYPES),
  headerString,
);

/** A JSON value for a body: the form as an object (repeated names as arrays), or anything. */
function jsonBody(pairs: Pairs): Arbitrary<string> {
  const asObject = (): string => {
    const object: Record<string, string | string[]> = {};
    for (const [name, value] of pairs) {
      const previous = object[name];
      object[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
    }
    return JSON.stringify(object);
  };
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(null).map(asObject) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "[]",
        "null",
        '"text"',
        "1e999",
        "{",
        '{"a":',
        '{"a":"b"}}',
        '{"__proto__":{"x":"1"}}',
        '{"token":{"nested":"x"}}',
        '{"a":["b",1]}',
        "\ufeff{}",
        "",
      ),
    },
    { weight: 1, arbitrary: hostileString([], { long: false }) },
  );
}

/** multipart/form-data, well formed or broken (no boundary, the wrong one, truncated). */
function multipartBody(pairs: Pairs): Arbitrary<{ contentType: string; bytes: Uint8Array<ArrayBuffer> }> {
  return fc
    .tuple(
      fc.constantFrom("well-formed", "no-boundary", "wrong-boundary", "truncated", "file-part"),
      fc.string({ unit: "binary-ascii", minLength: 1, maxLength: 20 }),
    )
    .map(([shape, junk]) => {
      const boundary = "----fuzzBoundary7MA4YWxk";
      const parts = pairs.map(
        ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      );
      if (shape === "file-part")
        parts.push(
          `--${boundary}\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${junk}\r\n`,
        );
      let text = `${parts.join("")}--${boundary}--\r\n`;
      if (shape === "truncated") text = text.slice(0, Math.max(0, text.length - 12));
      const contentType =
        shape === "no-boundary"
          ? "multipart/form-data"
          : shape === "wrong-boundary"
            ? `multipart/form-data; boundary=${asHeaderValue(junk)}`
            : `multipart/form-data; boundary=${boundary}`;
      return { contentType, bytes: utf8(text) };
    });
}

/** Bodies of every kind a client might send, from the form it means to send. */
export function bodyArb(pairs: Arbitrary<Pairs>, options: { oversized?: boolean } = {}): Arbitrary<BodySpec> {
  const contentLength = fc.oneof(
    { weight: 6, arbitrary: fc.constant("none") },
    { weight: 3, arbitrary: fc.constant("truthful") },
    { weight: 1, arbitrary: fc.constantFrom("0", "-1", "abc", "1e3", "99999999999", " 12 ", "0x10", "") },
  );
  const form = fc
    .tuple(pairs, formStyle, fc.option(fc.constantFrom(...FORM_TYPES), { freq: 4 }))
    .map(([p, style, type]) => ({ contentType: type, bytes: utf8(encodeForm(p, style)) }));
  const json = fc
    .tuple(pairs.chain(jsonBody), fc.constantFrom(...JSON_TYPES))
    .map(([text, type]) => ({ contentType: type, bytes: utf8(text) }));
  const multipart = pairs.chain(multipartBody);
  const badUtf8 = fc
    .tuple(
      pairs,
      fc.array(fc.oneof(fc.constantFrom(...BAD_UTF8), fc.uint8Array({ maxLength: 40 })), {
        minLength: 1,
        maxLength: 6,
      }),
      contentTypeArb,
    )
    .map(([p, junk, type]) => ({ contentType: type, bytes: concat([utf8(encodeForm(p, "raw")), ...junk]) }));
  const wrongType = fc
    .tuple(pairs, formStyle, contentTypeArb)
    .map(([p, style, type]) => ({ contentType: type, bytes: utf8(encodeForm(p, style)) }));
  const empty = contentTypeArb.map((type) => ({ contentType: type, bytes: new Uint8Array(0) }));
  // Near the 64 KB limit from below (accepted), and, when asked, above it (413).
  const big = fc
    .tuple(
      pairs,
      fc.integer({ min: 60_000, max: options.oversized ? 200_000 : 65_536 }),
      fc.option(fc.constantFrom(...FORM_TYPES, ...JSON_TYPES), { freq: 3 }),
    )
    .map(([p, size, type]) => {
      const head = utf8(encodeForm(p, "encoded"));
      const padding = new Uint8Array(Math.max(0, size - head.length - 5)).fill(0x61);
      return { contentType: type, bytes: concat([head, utf8("&pad="), padding]) };
    });
  const shaped = fc.oneof(
    { weight: 6, arbitrary: form },
    { weight: 3, arbitrary: json },
    { weight: 2, arbitrary: multipart },
    { weight: 2, arbitrary: badUtf8 },
    { weight: 2, arbitrary: wrongType },
    { weight: 1, arbitrary: empty },
    { weight: 1, arbitrary: big },
  );
  return fc.tuple(shaped, contentLength).map(([body, length]) => ({ ...body, contentLength: length }));
}

// ---------------------------------------------------------------------------------------
// Requests

export const METHODS = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "PATCH",
  "OPTIONS",
  "PROPFIND",
  "QUERY",
  "post",
  "get",
] as const;
export const methodArb = fc.constantFrom(...METHODS);

export interface RequestSpec {
  method: string;
  /** Path and query, e.g. "/auth?x=1". */
  target: string;
  headers: Record<string, string | null>;
  body: BodySpec | null;
}

/** The Request a spec describes. GET and HEAD carry no body (the Request constructor refuses one). */
export function buildRequest(spec: RequestSpec): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(spec.headers)) if (value !== null) headers.append(name, value);
  const method = spec.method.toUpperCase();
  const body = method === "GET" || method === "HEAD" ? null : spec.body;
  if (body) {
    if (body.contentType !== null) headers.set("content-type", body.contentType);
    if (body.contentLength === "truthful") headers.set("content-length", String(body.bytes.byteLength));
    else if (body.contentLength !== "none") headers.set("content-length", body.contentLength);
  }
  return new Request(`${BASE}${spec.target}`, { method: spec.method, headers, ...(body ? { body: body.bytes } : {}) });
}

/** Values that only exist at run time (a fresh session cookie, a request object signed at the
 * current clock time) appear in generated requests as these words, which survive every
 * encoding, and are filled in just before the request is sent. */
export const PH = {
  session: "PHxSESSIONx",
  request: "PHxREQUESTx",
  ticket: "PHxTICKETx",
  assertion: "PHxASSERTIONx",
  passkey: "PHxPASSKEYx",
  client: "PHxCLIENTx",
} as const;

export type Resolvers = Partial<Record<keyof typeof PH, () => Promise<string> | string>>;

const isJsonType = (type: string | null): boolean => /json/i.test(type ?? "");

/** The spec with every placeholder that occurs in it replaced (each computed once). In a JSON
 * body the value is inserted JSON-escaped, so that the document stays what it was. */
export async function resolvePlaceholders(spec: RequestSpec, resolvers: Resolvers): Promise<RequestSpec> {
  const bodyText = spec.body ? Buffer.from(spec.body.bytes).toString("latin1") : "";
  const everything = [spec.target, ...Object.values(spec.headers), bodyText].join("\n");
  const values = new Map<string, string>();
  for (const [key, word] of Object.entries(PH) as [keyof typeof PH, string][]) {
    const resolve = resolvers[key];
    if (resolve && everything.includes(word)) values.set(word, await resolve());
  }
  if (values.size === 0) return spec;
  const fill = (text: string, escape: (v: string) => string = (v) => v): string => {
    let out = text;
    for (const [word, value] of values) out = out.replaceAll(word, escape(value));
    return out;
  };
  const headers = Object.fromEntries(
    Object.entries(spec.headers).map(([name, value]) => [name, value === null ? null : fill(value)]),
  );
  let body = spec.body;
  if (body) {
    // Bytes as Latin-1 text and back: the placeholders are ASCII, every other byte is kept.
    const escape = isJsonType(body.contentType) ? (v: string) => JSON.stringify(v).slice(1, -1) : (v: string) => v;
    const filled = fill(bodyText, (v) => Buffer.from(escape(v), "utf8").toString("latin1"));
    body = { ...body, bytes: new Uint8Array(Buffer.from(filled, "latin1")) };
  }
  return { ...spec, target: fill(spec.target), headers, body };
}

export const ORIGINS = [
  BASE,
  "null",
  "https://evil.example",
  `${BASE}.evil.example`,
  `${BASE}/`,
  "HTTPS://AUTH.JANE.EXAMPLE",
  "http://auth.jane.example",
  "https://auth.jane.example:443",
] as const;
export const FETCH_SITES = [
  "same-origin",
  "same-site",
  "cross-site",
  "none",
  "SAME-ORIGIN",
  "same-origin, cross-site",
] as const;

/** Origin and Sec-Fetch-Site: mostly this site's own (so that the request gets past the
 * cross-site check), else anything. */
export const originHeaders: Arbitrary<{ origin: string | null; "sec-fetch-site": string | null }> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ origin: BASE, "sec-fetch-site": "same-origin" }) },
  { weight: 1, arbitrary: fc.constant({ origin: "null", "sec-fetch-site": "same-origin" }) },
  {
    weight: 2,
    arbitrary: fc.record({
      origin: fc.option(fc.oneof(fc.constantFrom(...ORIGINS), headerString)),
      "sec-fetch-site": fc.option(fc.oneof(fc.constantFrom(...FETCH_SITES), headerString)),
    }),
  },
);

const TOKEN68 = fc.string({
  unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/"),
  minLength: 1,
  maxLength: 80,
});

/** Authorization headers: real tokens from the pool, Bearer with junk, other schemes, repeated
 * credentials, and very long ones. */
export function authorizationArb(realTokens: () => readonly string[]): Arbitrary<string | null> {
  const real = fc.nat().map((i) => {
    const tokens = realTokens();
    return tokens.length === 0
      ? "iat_AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
      : tokens[i % tokens.length]!;
  });
  const credential = fc.oneof(
    real,
    TOKEN68,
    headerString,
    fc.constant("iat_AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
    fc.constant("ic_" + "A".repeat(43)),
  );
  const scheme = fc.constantFrom(
    "Bearer ",
    "bearer ",
    "BEARER ",
    "Bearer  ",
    "Bearer\t",
    "Bearer",
    "Basic ",
    "Token ",
    "",
    "Bearer =",
    "DPoP ",
  );
  return fc.option(
    fc.oneof(
      { weight: 4, arbitrary: real.map((t) => `Bearer ${t}`) },
      {
        weight: 4,
        arbitrary: fc
          .tuple(scheme, credential, fc.constantFrom("", " ", "==", "=", ", Bearer x", " extra"))
          .map(([s, c, tail]) => `${s}${c}${tail}`),
      },
      { weight: 1, arbitrary: fc.integer({ min: 1000, max: 100_000 }).map((n) => `Bearer ${"A".repeat(n)}`) },
      { weight: 1, arbitrary: headerString },
    ),
    { freq: 6 },
  );
}

/** Cookie headers: the real session cookie (with and without company), forged and malformed
 * ones, percent junk, repeated names, and values past the 8 KB the server reads. */
export function cookieArb(
  realCookies: () => readonly string[],
  cookieName = "__Secure-indieauth_session",
): Arbitrary<string | null> {
  const real = fc.nat().map((i) => {
    const cookies = realCookies();
    return cookies.length === 0 ? `${cookieName}=x` : cookies[i % cookies.length]!;
  });
  const jwtish = fc.tuple(TOKEN68, TOKEN68, TOKEN68).map((parts) => parts.join("."));
  const value = fc.oneof(
    jwtish,
    headerString,
    fc.constantFrom(...PERCENT_JUNK),
    fc.constant(
      "eyJhbGciOiJub25lIiwidHlwIjoiaW5kaWVhdXRoLXNlc3Npb24rand0In0.eyJzaWQiOiJBQUFBQUFBQUFBQUFBQUFBQUFBQUFBIn0.",
    ),
  );
  return fc.option(
    fc.oneof(
      { weight: 3, arbitrary: real },
      { weight: 2, arbitrary: fc.tuple(real, value).map(([r, v]) => `${cookieName}=${v}; ${r}`) },
      { weight: 2, arbitrary: fc.tuple(real, headerString).map(([r, junk]) => `${junk}; ${r}; ${junk}`) },
      { weight: 3, arbitrary: value.map((v) => `${cookieName}=${v}`) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          ";",
          "=",
          ";;;=;",
          `${cookieName}`,
          `${cookieName}=`,
          `${cookieName}="quoted"`,
          `${cookieName}=%E0%A4%A`,
          `a=1; a=2; ${cookieName}=x; ${cookieName}=y`,
        ),
      },
      { weight: 1, arbitrary: fc.integer({ min: 8000, max: 20_000 }).map((n) => `${cookieName}=${"a".repeat(n)}`) },
      { weight: 1, arbitrary: headerString },
    ),
    { freq: 5 },
  );
}

export const acceptArb = fc.option(
  fc.oneof(
    fc.constantFrom(
      "application/json",
      "application/x-www-form-urlencoded",
      "application/x-www-form-urlencoded, application/json",
      "*/*",
      "text/html",
    ),
    headerString,
  ),
  { freq: 3 },
);

// ---------------------------------------------------------------------------------------
// What every answer must look like

// A V8 stack frame, raw or JSON-escaped ("\n    at f (file:1:2)"), and an error message
// that names a source file.
const STACK_TRACE = /(\n|\\n)\s+at .+\(.+:\d+:\d+\)/;
const ERROR_WITH_PATH =
  /\w*Error: [^\n]*(\/(work|home|tmp|usr|var|opt|app)\/|\.[cm]?[jt]s:\d+)|node:internal|node_modules\//;

/** The only elements of the server's own message pages (html.ts). */
const PAGE_ELEMENTS = new Set(["!doctype", "html", "head", "meta", "title", "link", "body", "main", "h1", "p", "a"]);

export interface AnswerRules {
  /** Every status this endpoint documents. */
  statuses: readonly number[];
  /** A 401 must carry a Bearer challenge (resource endpoints, RFC 6750 3). */
  bearerChallenge?: boolean;
  /** The request carried Basic credentials: a refused client is challenged in that scheme, and
   * only then (RFC 6749 5.2). Unsaid: either is accepted. */
  basicSent?: boolean;
}

export interface Answer {
  status: number;
  text: string;
  json: unknown;
  location: string | null;
}

/** Checks the invariants of any answer and returns it read. */
export async function expectDocumentedAnswer(response: unknown, rules: AnswerRules): Promise<Answer> {
  expect(response, "the handler answers with a Response").toBeInstanceOf(Response);
  const res = response as Response;
  expect(res.status, "never a 5xx").toBeLessThan(500);
  expect(rules.statuses, `status ${res.status} is documented`).toContain(res.status);
  const text = await res.text();
  expect(text, "no stack trace").not.toMatch(STACK_TRACE);
  expect(text, "no error with a source path").not.toMatch(ERROR_WITH_PATH);
  const type = res.headers.get("content-type");
  if (text !== "") expect(res.headers.get("x-content-type-options")).toBe("nosniff");

  const location = res.headers.get("location");
  let json: unknown = undefined;

  if (res.status >= 300 && res.status < 400) {
    expect(location, "a redirect has a Location").toBeTruthy();
    expect(text, "a redirect has no body").toBe("");
    expect(res.headers.get("cache-control")).toBe("no-store");
  } else if (res.status === 204) {
    expect(text).toBe("");
  } else if (type === "application/json") {
    expect(res.headers.get("cache-control")).toBe("no-store");
    json = JSON.parse(text);
    if (res.status >= 400) expectErrorBody(res, json as Record<string, unknown>);
  } else if (type === "text/html; charset=utf-8") {
    expectSafePage(res, text);
  } else {
    // The token endpoint's form-encoded answer, and any refusal, for a client that asks for one.
    expect(type, "a body is JSON, HTML or form-encoded").toBe("application/x-www-form-urlencoded");
    expect(res.headers.get("cache-control")).toBe("no-store");
    if (res.status >= 400) {
      json = Object.fromEntries(new URLSearchParams(text));
      expectErrorBody(res, json as Record<string, unknown>);
    } else {
      expect(res.status).toBe(200);
    }
  }

  if (res.status === 405) expect(res.headers.get("allow")).toBeTruthy();
  if (res.status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  const refusedClient = res.status === 401 && (json as { error?: unknown } | undefined)?.error === "invalid_client";
  if (refusedClient) {
    // A refused client is challenged in the scheme it used, and not when it used none (RFC 6749 5.2).
    const challenge = res.headers.get("www-authenticate");
    if (rules.basicSent === undefined) expect([null, 'Basic realm="indieauth"']).toContain(challenge);
    else expect(challenge).toBe(rules.basicSent ? 'Basic realm="indieauth"' : null);
  } else if (res.status === 401 && rules.bearerChallenge) {
    expect(res.headers.get("www-authenticate") ?? "").toMatch(/^Bearer realm="indieauth"/);
  }
  return { status: res.status, text, json, location };
}

/** A refusal's body: `error` and `error_description`; only the bare challenge of a request
 * without any credential (RFC 6750 3.1) carries neither, in the body as in the header. */
function expectErrorBody(res: Response, body: Record<string, unknown>): void {
  const bare = res.status === 401 && res.headers.get("www-authenticate") === 'Bearer realm="indieauth"';
  if (bare) return void expect(body, "no error information without a credential").toEqual({});
  expect(typeof body.error, "an error has a string `error`").toBe("string");
  expect(typeof body.error_description, "an error has a string `error_description`").toBe("string");
}

/** An HTML answer: the server's fixed frame, with a CSP and nothing generated left unescaped. */
export function expectSafePage(res: Response, html: string): void {
  expect(res.headers.get("content-security-policy") ?? "").toContain("default-src 'none'");
  expect(res.headers.get("cache-control")).toBe("no-store");
  expectSafeHtml(html);
}

/** Markup of the page frame only: its few elements, no event handler or javascript: URL, at
 * most one link, and never the generated script marker. */
export function expectSafeHtml(html: string): void {
  expect(html).not.toContain(SCRIPT_MARKER);
  for (const tag of html.match(/<[^>]*>?/g) ?? []) {
    const name = /^<\/?\s*([!a-z][a-z0-9-]*)/i.exec(tag)?.[1]?.toLowerCase();
    expect(PAGE_ELEMENTS, `element ${JSON.stringify(tag.slice(0, 80))} is one of the page frame's`).toContain(name);
    // Quoted values are text (escapeHtml escapes quotes); what is left is attribute names.
    const bare = tag.replace(/"[^"]*"/g, '""');
    expect(bare, "no event handler attribute").not.toMatch(/\son[a-z]+\s*=/i);
    expect(tag, "no javascript: URL").not.toMatch(/(href|src)\s*=\s*"\s*javascript:/i);
  }
  expect((html.match(/<a\s/g) ?? []).length, "at most one link").toBeLessThanOrEqual(1);
}
