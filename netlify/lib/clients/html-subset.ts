// What the microformats parser is given of a fetched page. HTML tree building is quadratic on
// mis-nested markup (512 KB of "<a><div>x" took 17 s), so a hostile page is never handed to it
// as it is: one linear scan (html-scan.ts) keeps the first <base href>, the wanted rel links (as
// bare <link>s) and the first wanted root (h-app), rebuilt well-formed from plain tags within
// SUBSET_LIMITS, so that the parser's work is linear and small. See docs/security.md.
import { scanHtml, type Attributes } from "./html-scan.ts";

export interface Wanted {
  /** rel values whose elements are kept (e.g. redirect_uri). */
  rels: readonly string[];
  /** Root class names whose first element is kept with its content (e.g. h-app). */
  roots: readonly string[];
}

const SUBSET_LIMITS = {
  depth: 16,
  subtreeChars: 8 * 1024,
  subtreeElements: 250,
  /** Microformats class names per element (a property's value is worked out once per name). */
  classes: 8,
  /** Items inside the root read as items, those inside them as plain elements: an element that
   * is both an item and several properties is parsed once per property, so nested ones would
   * cost (properties)^(depth). */
  itemNesting: 1,
  rels: 100,
  relChars: 32 * 1024,
  attributeChars: 2048,
} as const;

// Tags microformats parsing reads by name (src, href, alt, value, datetime...); everything else
// becomes a <span>, which the HTML parser treats as plain (no implied ends, no reparenting).
const KEPT = new Set([
  "a",
  "abbr",
  "area",
  "audio",
  "data",
  "del",
  "iframe",
  "img",
  "input",
  "ins",
  "link",
  "meta",
  "object",
  "source",
  "time",
  "video",
]);
const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);
// Elements whose content the parser does not read as markup, or microformats ignore.
const DROPPED = new Set([
  "script",
  "style",
  "template",
  "textarea",
  "title",
  "noscript",
  "xmp",
  "noembed",
  "noframes",
  "plaintext",
]);
const ATTRIBUTES = ["href", "src", "alt", "title", "value", "data", "datetime", "poster", "content"] as const;
const READ = new Set(["class", "rel", ...ATTRIBUTES]);
// Microformats 1 root classes, which the parser still reads as items.
const MF1_ROOTS = new Set([
  "adr",
  "geo",
  "hentry",
  "hfeed",
  "hnews",
  "hproduct",
  "hreview",
  "vcard",
  "hresume",
  "vevent",
  "item",
  "hreview-aggregate",
]);
const isItemClass = (name: string) => name.startsWith("h-") || MF1_ROOTS.has(name);
const isMicroformatsClass = (name: string) =>
  /^(?:p|u|dt|e)-/.test(name) || name === "value" || name === "value-title" || isItemClass(name);

// Attribute values stay as written (character references included) for the parser to decode;
// with ", < and > escaped, every "<" and ">" left in the subset belongs to a tag.
const quoted = (value: string) =>
  `"${value.replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")}"`;

// Class and rel lists are split on spaces alone, as the parser splits them.
const words = (value: string | undefined) => (value === undefined ? [] : value.split(" "));

/** The element's microformats classes (at most SUBSET_LIMITS.classes), without item classes
 * when `asItem` is false. */
function classesOf(attributes: Attributes, asItem: boolean): string[] {
  return words(attributes.get("class"))
    .filter((name) => isMicroformatsClass(name) && (asItem || !isItemClass(name)))
    .slice(0, SUBSET_LIMITS.classes);
}

function attributeText(attributes: Attributes, classes: readonly string[]): string {
  let text = classes.length > 0 ? ` class=${quoted(classes.join(" "))}` : "";
  for (const name of ATTRIBUTES) {
    const value = attributes.get(name);
    if (value !== undefined && value.length <= SUBSET_LIMITS.attributeChars) text += ` ${name}=${quoted(value)}`;
  }
  return text;
}

/** The rebuilt subtree of the first wanted root. */
class Subtree {
  out = "";
  private elements = 0;
  /** Open elements: the tag as written (to match end tags), as emitted, and whether an item. */
  private readonly open: { written: string; emitted: string; item: boolean }[] = [];
  closed = false;

  private emit(text: string): boolean {
    if (this.out.length + text.length > SUBSET_LIMITS.subtreeChars) {
      this.close();
      return false;
    }
    this.out += text;
    return true;
  }

  private popTo(index: number): void {
    while (this.open.length > index) this.out += `</${this.open.pop()!.emitted}>`;
    if (this.open.length === 0) this.closed = true;
  }

  start(tag: string, attributes: Attributes): void {
    if (this.closed) return;
    if (DROPPED.has(tag) || (VOID.has(tag) && !KEPT.has(tag))) {
      if (this.open.length === 0) this.closed = true;
      return;
    }
    const emitted = KEPT.has(tag) ? tag : "span";
    // A link inside a link ends the outer one, as in HTML (and as the parser would, slowly).
    const outer = emitted === "a" ? this.open.findIndex((e) => e.emitted === "a") : -1;
    if (outer !== -1) this.popTo(outer);
    const leaf = VOID.has(tag) || tag === "iframe";
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- popTo() may have closed it (TS keeps the narrowing).
    if (this.closed || (this.open.length >= SUBSET_LIMITS.depth && !leaf)) return;
    if (++this.elements > SUBSET_LIMITS.subtreeElements) return this.close();
    // The root is an item; so may be those inside it, up to SUBSET_LIMITS.itemNesting.
    const itemsOpen = this.open.filter((e) => e.item).length;
    const classes = classesOf(attributes, itemsOpen <= SUBSET_LIMITS.itemNesting);
    if (!this.emit(`<${emitted}${attributeText(attributes, classes)}>`)) return;
    if (tag === "iframe") this.emit("</iframe>");
    else if (!leaf) this.open.push({ written: tag, emitted, item: classes.some(isItemClass) });
    // A root that holds nothing (a void element) is complete at once.
    if (this.open.length === 0) this.closed = true;
  }

  end(tag: string): void {
    if (this.closed) return;
    const i = this.open.findLastIndex((e) => e.written === tag);
    if (i !== -1) this.popTo(i);
  }

  text(text: string): void {
    if (this.closed) return;
    const escaped = text.replaceAll("<", "&lt;");
    const room = SUBSET_LIMITS.subtreeChars - this.out.length;
    if (escaped.length <= room) this.out += escaped;
    else {
      this.out += escaped.slice(0, room);
      this.close();
    }
  }

  close(): void {
    this.popTo(0);
    this.closed = true;
  }
}

/** The part of `html` the microformats parser may see (see the top of this file). */
export function htmlSubset(html: string, wanted: Wanted): string {
  let base: string | undefined;
  const rels: string[] = [];
  let relChars = 0;
  let subtree: Subtree | undefined;
  scanHtml(html, {
    attributes: READ,
    start(tag, attributes) {
      const href = attributes.get("href");
      // The first <base href> counts, unless too long to be real (then the page's URL does).
      if (tag === "base" && base === undefined && href !== undefined)
        base = href.length <= SUBSET_LIMITS.attributeChars ? `<base href=${quoted(href)}>` : "";
      const rel = attributes.get("rel");
      // The parser reads rel on any element that has an href.
      if (
        rel !== undefined &&
        href !== undefined &&
        rels.length < SUBSET_LIMITS.rels &&
        href.length <= SUBSET_LIMITS.attributeChars
      ) {
        const kept = words(rel).filter((r) => wanted.rels.includes(r));
        const link = `<link rel=${quoted(kept.join(" "))} href=${quoted(href)}>`;
        if (kept.length > 0 && relChars + link.length <= SUBSET_LIMITS.relChars) {
          rels.push(link);
          relChars += link.length;
        }
      }
      if (subtree === undefined && words(attributes.get("class")).some((c) => wanted.roots.includes(c)))
        subtree = new Subtree();
      subtree?.start(tag, attributes);
    },
    end: (tag) => subtree?.end(tag),
    text: (start, end) => subtree?.text(html.slice(start, end)),
  });
  subtree?.close();
  return `${base ?? ""}${rels.join("")}${subtree?.out ?? ""}`;
}
