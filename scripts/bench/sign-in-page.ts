// (5) The sign-in page: bytes of HTML+CSS+JS+icon as the build makes them, and no request to
// another origin (what the HTML loads, what the stylesheets and scripts load in turn).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { SIGN_IN_PAGE } from "../../netlify/lib/pages/paths.ts";
import type { Env } from "../../netlify/lib/platform/config.ts";
import { BASE } from "../../test/helpers/requests.ts";
import { buildSite } from "../build.ts";
import { check, printTable, say, verdict } from "./report.ts";
import { BUDGET } from "./settings.ts";
import { kb } from "./stats.ts";

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
    ...js.matchAll(
      /\b(?:fetch|sendBeacon|WebSocket|EventSource|import|importScripts|open)\s*\(\s*(?:["'][A-Z]+["']\s*,\s*)?["'`]((?:https?:|wss?:)?\/\/[^"'`]+)/g,
    ),
  ].map((m) => m[1]!);
  const relativeImports = [...js.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]!);
  const otherUrls = [...new Set([...js.matchAll(/["'`](https?:\/\/[^"'`\s]+)/g)].map((m) => m[1]!))].filter(
    (url) => !fetched.includes(url),
  );
  return { fetched, relativeImports, otherUrls };
}

export async function runSignInPage(env: Env): Promise<SignInPageResult> {
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
      resources.push({
        url: url.pathname,
        kind,
        bytes: body.length,
        gzipBytes: gzipSync(body).length,
        sameOrigin: true,
      });
      return body.toString("utf8");
    };

    const html = (await add(pageUrl, "html"))!;
    for (const ref of htmlReferences(html)) {
      const url = new URL(ref.url, pageUrl);
      const body = await add(url, ref.kind);
      if (body === null) continue;
      if (url.pathname.endsWith(".css"))
        for (const css of cssReferences(body)) await add(new URL(css, url), "css url()");
      if (url.pathname.endsWith(".js")) await followScript(url, body, add, otherUrlStrings);
    }
    const own = resources.filter((r) => r.sameOrigin);
    const totalBytes = own.reduce((sum, r) => sum + r.bytes, 0);
    const totalGzipBytes = own.reduce((sum, r) => sum + r.gzipBytes, 0);
    const otherOrigins = resources.filter((r) => !r.sameOrigin).map((r) => `${r.kind}: ${r.url}`);
    // Over budget, the measure names what weighs most, so that a miss says where the bytes are.
    const largest = [...own]
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 2)
      .map((r) => `${new URL(r.url, BASE).pathname} ${kb(r.bytes)} KB`);
    const over = totalBytes > BUDGET.signInPageBytes ? ` (most of it: ${largest.join(", ")})` : "";
    check(
      "5 sign-in page",
      "HTML+CSS+JS+icon",
      `${kb(totalBytes)} KB${over}`,
      `<= ${kb(BUDGET.signInPageBytes)} KB`,
      totalBytes <= BUDGET.signInPageBytes,
    );
    check(
      "5 sign-in page",
      "requests to other origins",
      otherOrigins.length === 0 ? "none" : otherOrigins.join(", "),
      "none",
      otherOrigins.length === 0,
    );
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

export function printSignInPage(page: SignInPageResult): void {
  printTable(
    `(5) Sign-in page ${SIGN_IN_PAGE} (budget ${kb(BUDGET.signInPageBytes)} KB uncompressed, no request to another origin)`,
    ["resource", "kind", "KB", "gzip KB", "origin"],
    [
      ...page.resources.map((r) => [
        r.url,
        r.kind,
        r.sameOrigin ? kb(r.bytes) : "-",
        r.sameOrigin ? kb(r.gzipBytes) : "-",
        r.sameOrigin ? "same" : "OTHER",
      ]),
      [
        "total (same origin)",
        "",
        kb(page.totalBytes),
        kb(page.totalGzipBytes),
        verdict(page.totalBytes <= BUDGET.signInPageBytes),
      ],
    ],
  );
  say(
    `requests to other origins: ${page.otherOrigins.length === 0 ? "none" : page.otherOrigins.join(", ")}  ${verdict(page.otherOrigins.length === 0)}`,
  );
  if (page.otherUrlStrings.length > 0)
    say(`absolute URL strings in the scripts not used for a request (not counted): ${page.otherUrlStrings.join(", ")}`);
}
