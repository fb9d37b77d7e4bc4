// Attack catalogue: a client page built to make parsing it slow (issue 13, item 2). HTML tree
// building is quadratic on mis-nested markup: 512 KB of "<a><div>x" cost 17 s of CPU per GET
// /auth. The defence is structural, so these tests look at what the microformats parser is
// handed, through the real discovery path (the real parser, wrapped to record its input),
// never at a clock: from every hostile page it gets little, well-formed markup. The bench
// times the same pages (scripts/bench/parse-cost.ts: <= 100 ms each).
import { beforeEach, describe, expect, it, vi } from "vitest";
import { parseClientDocument } from "../../../netlify/lib/clients/client-info.ts";
import type { FetchedDocument } from "../../../netlify/lib/clients/safe-fetch.ts";
import { HOSTILE_PAGES, PAGE_BYTES, REAL_PAGES } from "../../helpers/hostile-html.ts";

const handed = vi.hoisted(() => [] as string[]);
vi.mock("microformats-parser", async (importOriginal) => {
  const real = await importOriginal<typeof import("microformats-parser")>();
  const mf2 = (html: string, options: Parameters<typeof real.mf2>[1]) => {
    handed.push(html);
    return real.mf2(html, options);
  };
  // A CommonJS package: the server reads its exports from `default` (core/commonjs.ts).
  return { ...real, mf2, default: { ...real, mf2 } };
});

const CLIENT_ID = "https://app.example.com/";
const page = (body: string, linkHeaders: string[] = []): FetchedDocument => ({
  url: CLIENT_ID,
  status: 200,
  contentType: "text/html",
  linkHeaders,
  body,
});

// Tags on which HTML tree building does nothing special (no implied end, no reparenting, no
// list of formatting elements to rebuild), plus <a>, never inside another <a>.
const PLAIN = new Set(["span", "a", "abbr", "audio", "data", "del", "iframe", "ins", "object", "time", "video"]);
const VOID = new Set(["area", "base", "img", "input", "link", "meta", "source"]);

// An item nested in an item that is several properties is parsed once per property, at every
// level: (properties)^(depth) (31 levels of five made the parser run out of memory).
const ITEM =
  /(?:^| )(?:h-[a-z0-9-]+|vcard|hentry|hfeed|hcard|hproduct|hreview|hnews|hresume|vevent|adr|geo|item)(?: |$)/;

/** What makes parsing slow, found in `html`: mis-nesting, special tags, depth, nested items. */
function shapeOf(html: string): {
  depth: number;
  itemDepth: number;
  mostClasses: number;
  elements: number;
  problems: string[];
} {
  const open: { name: string; item: boolean }[] = [];
  const problems: string[] = [];
  let depth = 0;
  let itemDepth = 0;
  let mostClasses = 0;
  let elements = 0;
  const tags = [...html.matchAll(/<(\/?)([a-z]+)((?: [a-z]+="[^"<>]*")*)>/g)];
  if (tags.length !== html.split("<").length - 1) problems.push("a < that is not one of the tags");
  for (const [, closing, name, attributes] of tags) {
    if (closing) {
      if (open.pop()?.name !== name) problems.push(`</${name}> does not close the open element`);
      continue;
    }
    elements++;
    const classes = / class="([^"]*)"/.exec(attributes!)?.[1] ?? "";
    mostClasses = Math.max(mostClasses, classes === "" ? 0 : classes.split(" ").length);
    if (VOID.has(name!)) continue;
    if (!PLAIN.has(name!)) problems.push(`<${name}>`);
    if (name === "a" && open.some((e) => e.name === "a")) problems.push("<a> inside <a>");
    depth = Math.max(depth, open.push({ name: name!, item: ITEM.test(classes) }));
    itemDepth = Math.max(itemDepth, open.filter((e) => e.item).length);
  }
  if (open.length > 0) problems.push(`${open.length} elements left open`);
  return { depth, itemDepth, mostClasses, elements, problems: [...new Set(problems)].slice(0, 5) };
}

beforeEach(() => {
  handed.length = 0;
});

describe("parser cost: what reaches the parser from a hostile client page", () => {
  it.each(Object.keys(HOSTILE_PAGES))(
    "%s (512 KB): at most 48 KB, well-formed, 16 deep, items 2 deep",
    async (name) => {
      const body = HOSTILE_PAGES[name]!;
      expect(body.length).toBe(PAGE_BYTES);
      await parseClientDocument(page(body), CLIENT_ID);
      expect(handed).toHaveLength(1);
      const input = handed[0]!;
      expect(input.length).toBeLessThanOrEqual(48 * 1024);
      const shape = shapeOf(input);
      expect(shape.problems).toEqual([]);
      expect(shape.depth).toBeLessThanOrEqual(16);
      expect(shape.itemDepth).toBeLessThanOrEqual(2);
      expect(shape.mostClasses).toBeLessThanOrEqual(8);
      expect(shape.elements).toBeLessThanOrEqual(400);
    },
  );

  it("an h-app's content past the bound is not read, even its name", async () => {
    const filler = "<p>Lorem ipsum <b>dolor</b> sit amet.</p>".repeat(1000);
    const early = await parseClientDocument(
      page(`<div class="h-app"><span class="p-name">Early Name</span>${filler}</div>`),
      CLIENT_ID,
    );
    expect(early.name).toBe("Early Name");
    const late = await parseClientDocument(
      page(`<div class="h-app">${filler}<span class="p-name">Late Name</span></div>`),
      CLIENT_ID,
    );
    expect(late.name).not.toBe("Late Name");
    expect(handed.every((input) => input.length <= 48 * 1024)).toBe(true);
  });

  it("long rel values and many of them fill at most the rel budget", async () => {
    const links = Array.from(
      { length: 500 },
      (_, i) => `<link rel="redirect_uri" href="/${"x".repeat(2000)}${i}">`,
    ).join("");
    await parseClientDocument(page(links), CLIENT_ID);
    expect(handed[0]!.length).toBeLessThanOrEqual(32 * 1024 + 100);
  });

  it("an h-app after 500 KB of hostile markup is still found: the whole page is scanned, not a prefix", async () => {
    const app = `<div class="h-app"><img class="u-logo" src="/logo.png"><a class="u-url p-name" href="/">Found</a></div><link rel="redirect_uri" href="/cb">`;
    const junk = HOSTILE_PAGES["<a><div>x"]!.slice(0, PAGE_BYTES - app.length);
    const info = await parseClientDocument(page(junk + app), CLIENT_ID);
    expect(info).toMatchObject({
      name: "Found",
      uri: CLIENT_ID,
      logoUri: `${CLIENT_ID}logo.png`,
      redirectUris: [`${CLIENT_ID}cb`],
    });
  });
});

describe("real client pages still read", () => {
  it.each([
    [
      "Quill-style page (h-x-app h-app, <link rel=redirect_uri>)",
      {
        name: "Quill",
        uri: "https://quill.p3k.io/",
        logoUri: `${CLIENT_ID}images/quill-logo-144.png`,
        redirectUris: [`${CLIENT_ID}auth/callback`],
      },
    ],
    [
      "Indigenous-style page (Link header, h-app in the footer of 150 KB)",
      {
        name: "Indigenous",
        uri: CLIENT_ID,
        logoUri: `${CLIENT_ID}logo.png`,
        redirectUris: ["https://indigenous.realize.be/callback", "indigenous://auth"],
      },
    ],
    [
      "h-app on <body>, 200 KB of posts",
      { name: "Blog App", uri: CLIENT_ID, logoUri: `${CLIENT_ID}logo.svg`, redirectUris: [`${CLIENT_ID}callback`] },
    ],
  ])("%s", async (name, expected) => {
    const { body, linkHeaders } = REAL_PAGES[name]!;
    expect(await parseClientDocument(page(body, linkHeaders), CLIENT_ID)).toEqual({
      clientId: CLIENT_ID,
      fetched: true,
      ...expected,
    });
  });
});
