// The owner's name and photo from the representative h-card of ME, read at build time when
// PROFILE_NAME or PROFILE_PHOTO is not set, so that the sign-in page shows who signs in. Added to
// a blog whose home page is ME, the page is read from the publish folder the blog's build has
// just written (the deployed one may be older, or not there yet); anywhere else it is fetched
// through the address guard, as the photo is (a build machine's internal services are no
// profile page). The microformats parser sees the bounded subset discovery uses.
import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { publicOnlyPolicy } from "../netlify/lib/clients/address-guard.ts";
import { parseMicroformats } from "../netlify/lib/clients/microformats.ts";
import { fetchDocument } from "../netlify/lib/clients/safe-fetch.ts";

/** The site being built: its origins, and the folder its pages are in. */
export interface LocalSite {
  origins: string[];
  dir: string;
}

export interface OwnerCard {
  name?: string;
  /** An absolute http(s) URL. */
  photo?: string;
}

const MAX_PAGE_BYTES = 1024 * 1024;
const MAX_NAME = 100;

/** The file of `site` that serves `url`, if the URL is on the site and the file exists. */
export function localFile(url: URL, site: LocalSite | undefined): string | undefined {
  if (!site || !site.origins.includes(url.origin)) return undefined;
  const path = decodeURIComponent(url.pathname);
  const candidates = path.endsWith("/") ? [`${path}index.html`] : [path, `${path}.html`, `${path}/index.html`];
  for (const candidate of candidates) {
    const file = resolve(site.dir, `.${candidate}`);
    if (relative(site.dir, file).startsWith("..")) return undefined;
    if (existsSync(file) && statSync(file).isFile()) return file;
  }
  return undefined;
}

async function pageOf(
  me: URL,
  options: { development: boolean; site?: LocalSite },
): Promise<{ html: string; url: string }> {
  const file = localFile(me, options.site);
  if (file) return { html: (await readFile(file, "utf8")).slice(0, MAX_PAGE_BYTES), url: me.href };
  const policy = options.development ? () => true : await publicOnlyPolicy();
  const page = await fetchDocument(me, { policy, maxBytes: MAX_PAGE_BYTES, accept: "text/html" });
  if (!/html/i.test(page.contentType)) throw new Error(`it is ${page.contentType || "of no stated type"}, not HTML`);
  return { html: page.body, url: page.url };
}

const sameUrl = (a: string, b: string) => {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
};
const text = (value: unknown): string | undefined =>
  typeof value === "string"
    ? value
    : typeof (value as { value?: unknown } | null | undefined)?.value === "string"
      ? (value as { value: string }).value
      : undefined;

/** The name and photo of ME's representative h-card: the page's first h-card, taken when its
 * u-url or u-uid is ME or one of the page's rel=me links (microformats.org/wiki/representative-h-card). */
export async function readOwnerCard(
  me: string,
  options: { development: boolean; site?: LocalSite },
): Promise<{ card: OwnerCard } | { problem: string }> {
  let page: { html: string; url: string };
  try {
    page = await pageOf(new URL(me), options);
  } catch (error) {
    return { problem: `${me} could not be read: ${error instanceof Error ? error.message : "the fetch failed"}` };
  }
  const parsed = await parseMicroformats(page.html, page.url, { rels: ["me"], roots: ["h-card"] });
  const item = parsed?.items.find((i) => i.type?.includes("h-card"));
  if (!item) return { problem: `${me} has no h-card` };
  const urls = [...(item.properties.url ?? []), ...(item.properties.uid ?? [])]
    .map(text)
    .filter((u): u is string => u !== undefined);
  const relMe = parsed?.rels.me ?? [];
  if (!urls.some((u) => sameUrl(u, me) || sameUrl(u, page.url) || relMe.some((r) => sameUrl(u, r)))) {
    return { problem: `the h-card of ${me} is not its owner's (its u-url is neither ${me} nor a rel=me link)` };
  }
  const name = text(item.properties.name?.[0])?.replace(/\s+/g, " ").trim().slice(0, MAX_NAME);
  const photo = text(item.properties.photo?.[0]);
  return { card: { ...(name ? { name } : {}), ...(photo && /^https?:\/\//i.test(photo) ? { photo } : {}) } };
}

export interface OwnerShown {
  name: string;
  /** The photo's address, and where it came from (for the warning should it not be copied). */
  photo?: { url: string; from: string };
  /** Which of the h-card's values the pages show, when it was read. */
  note?: string;
}

/** Who the pages show as signing in: PROFILE_NAME and PROFILE_PHOTO where set, else the h-card's,
 * else ME's host and no photo. The h-card is read only for a value the variables leave out. */
export async function ownerShown(
  profile: OwnerCard | undefined,
  me: string,
  options: { development: boolean; site?: LocalSite; readCard?: boolean },
): Promise<OwnerShown> {
  const host = me ? new URL(me).host : "the owner";
  const env = { name: profile?.name, photo: profile?.photo };
  if (!me || options.readCard === false || (env.name && env.photo))
    return { name: env.name ?? host, ...(env.photo ? { photo: { url: env.photo, from: "PROFILE_PHOTO" } } : {}) };
  const read = await readOwnerCard(me, options);
  const card = "card" in read ? read.card : {};
  const fields = [
    ["name", "PROFILE_NAME"],
    ["photo", "PROFILE_PHOTO"],
  ] as const;
  const fromCard = fields.filter(([key]) => !env[key] && card[key]).map(([key]) => key);
  const without = fields.filter(([key]) => !env[key] && !card[key]);
  const said = [
    ...(fromCard.length > 0 ? [`the ${fromCard.join(" and ")} from the h-card of ${me}`] : []),
    ...without.map(
      ([key, variable]) =>
        `no ${key} (${variable} is not set, and ${"problem" in read ? read.problem : `the h-card of ${me} has none`})${key === "name" ? `: ${host} instead` : ""}`,
    ),
  ];
  const photo = env.photo ?? card.photo;
  return {
    name: env.name ?? card.name ?? host,
    ...(photo ? { photo: { url: photo, from: env.photo ? "PROFILE_PHOTO" : `The h-card's photo` } } : {}),
    note: `The sign-in and account pages show ${said.join("; ")}.`,
  };
}
