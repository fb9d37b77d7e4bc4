// The self-test's check of the owner's page: does ME point clients at this deployment?
// It is fetched server-side through the same address guard as client documents (in local
// development, where ME is usually http://localhost:8888/, loopback is allowed: ME is the
// owner's own setting, not something a visitor can choose).
import type { AddressPolicy } from "../clients/address-guard.ts";
import { publicOnlyPolicy } from "../clients/address-guard.ts";
import { linkTargets } from "../clients/link-header.ts";
import { parseMicroformats } from "../clients/microformats.ts";
import { fetchDocument, shareableReason, type FetchedDocument } from "../clients/safe-fetch.ts";
import type { Config } from "../platform/config.ts";
import { urlOf } from "../core/urls.ts";

export const DISCOVERY_RELS = ["indieauth-metadata", "authorization_endpoint", "token_endpoint"] as const;
type DiscoveryRel = (typeof DISCOVERY_RELS)[number];

interface RelCheck {
  rel: DiscoveryRel;
  expected: string;
  /** The first value found (a Link header wins over a <link> element, as clients read it). */
  found: string | null;
  ok: boolean;
  /** The exact tag to paste into the page's <head>. */
  tag: string;
}

export interface ProfileLinksReport {
  me: string;
  fetched: boolean;
  error?: string;
  checks: RelCheck[];
}

export function expectedTargets(baseUrl: string): Record<DiscoveryRel, string> {
  return {
    "indieauth-metadata": `${baseUrl}/.well-known/oauth-authorization-server`,
    authorization_endpoint: `${baseUrl}/auth`,
    token_endpoint: `${baseUrl}/token`,
  };
}

function resolve(target: string, base: string): string | null {
  return urlOf(target, base)?.href ?? null;
}

async function htmlRels(doc: FetchedDocument): Promise<Record<string, string[]>> {
  if (!/html/i.test(doc.contentType)) return {};
  return (await parseMicroformats(doc.body, doc.url, { rels: DISCOVERY_RELS, roots: [] }))?.rels ?? {};
}

export async function checkProfileLinks(
  config: Config,
  fetcher?: (url: URL) => Promise<FetchedDocument>,
): Promise<ProfileLinksReport> {
  const expected = expectedTargets(config.baseUrl);
  const checks = (found: (rel: DiscoveryRel) => string | null): RelCheck[] =>
    DISCOVERY_RELS.map((rel) => {
      const value = found(rel);
      return {
        rel,
        expected: expected[rel],
        found: value,
        ok: value === expected[rel],
        tag: `<link rel="${rel}" href="${expected[rel]}">`,
      };
    });

  const policy: AddressPolicy = config.development ? () => true : await publicOnlyPolicy();
  let doc: FetchedDocument;
  try {
    doc = await (fetcher ?? ((url: URL) => fetchDocument(url, { policy, accept: "text/html" })))(new URL(config.me));
  } catch (error) {
    // The report is public (the home page shows it): the words name no address and no system
    // error; the function's log (the owner's) has the whole reason.
    console.warn(
      `self-test: ${config.me} could not be fetched: ${error instanceof Error ? error.message : String(error)}`,
    );
    return { me: config.me, fetched: false, error: shareableReason(error), checks: checks(() => null) };
  }
  const rels = await htmlRels(doc);
  return {
    me: config.me,
    fetched: true,
    checks: checks((rel) => {
      const target = linkTargets(doc.linkHeaders, rel)[0] ?? rels[rel]?.[0];
      return target === undefined ? null : resolve(target, doc.url);
    }),
  };
}

/** How long one instance reuses a self-test's answer. */
export const SELF_TEST_CACHE_MS = 60_000;
let remembered: { key: string; expires: number; report: Promise<ProfileLinksReport> } | undefined;

/** The self-test as GET /indieauth/self-test/me answers it. Anyone may ask (the home page checks
 * before the owner ever signs in), so one instance fetches ME at most once a minute, however
 * often and however many at once ask; in development (ME is the owner's page being edited, on
 * their own machine) every check fetches. */
export function selfTestReport(config: Config, now: number): Promise<ProfileLinksReport> {
  if (config.development) return checkProfileLinks(config);
  const key = `${config.me} ${config.baseUrl}`;
  if (remembered !== undefined && remembered.key === key && remembered.expires > now) return remembered.report;
  const report = checkProfileLinks(config);
  remembered = { key, expires: now + SELF_TEST_CACHE_MS, report };
  // A failure of our own is not remembered (a page that cannot be fetched is an answer, and is).
  report.catch(() => {
    if (remembered?.report === report) remembered = undefined;
  });
  return report;
}
