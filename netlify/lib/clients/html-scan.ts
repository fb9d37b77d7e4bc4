// A linear scan of HTML into start tags, end tags and text, as the HTML tokenizer splits them:
// comments, doctypes and <?...> are skipped, the content of raw-text elements (script, style,
// textarea...) and of <template> is not reported, a tag cut off by the end of the page is
// dropped. No tree is built, so nothing here can be mis-nested: every character is looked at
// a bounded number of times, whatever the page.
export type Attributes = ReadonlyMap<string, string>;

interface HtmlHandler {
  /** Attribute names the handler reads; no others are kept. */
  attributes: ReadonlySet<string>;
  start(tag: string, attributes: Attributes): void;
  end(tag: string): void;
  /** Text from `start` to `end` of the page (unsliced: most of it is never needed). */
  text(start: number, end: number): void;
}

// Content read as text up to the matching end tag (scripting on, as the parser runs it).
const RAW_TEXT = new Set(["script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "textarea", "title"]);

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
const isAlpha = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
/** The UTF-16 unit at `i` (NaN past the end). */
const unitAt = (text: string, i: number) => text.charCodeAt(i);
const SLASH = 0x2f;
const GT = 0x3e;
const EQUALS = 0x3d;
/** Ends a tag name or an attribute name. */
const endsName = (c: number) => isSpace(c) || c === SLASH || c === GT;
const NO_ATTRIBUTES: Attributes = new Map();
const NO_WANTED: ReadonlySet<string> = new Set();

interface Tag {
  name: string;
  attributes: Attributes;
  /** Where the scan goes on, after the ">". */
  next: number;
}

/** The tag whose name starts at `at`, or null when the page ends inside it. Only the wanted
 * attributes are kept; the first of repeated ones wins, as in HTML. */
function readTag(html: string, at: number, wanted: ReadonlySet<string>): Tag | null {
  const n = html.length;
  let p = at;
  while (p < n && !endsName(unitAt(html, p))) p++;
  const name = html.slice(at, p).toLowerCase();
  let attributes: Map<string, string> | undefined;
  for (;;) {
    while (p < n && (isSpace(unitAt(html, p)) || unitAt(html, p) === SLASH)) p++;
    if (p >= n) return null;
    if (unitAt(html, p) === GT) return { name, attributes: attributes ?? NO_ATTRIBUTES, next: p + 1 };
    const nameStart = p++;
    while (p < n && !endsName(unitAt(html, p)) && unitAt(html, p) !== EQUALS) p++;
    const nameEnd = p;
    while (p < n && isSpace(unitAt(html, p))) p++;
    let valueStart = p;
    let valueEnd = p;
    if (unitAt(html, p) === EQUALS) {
      p++;
      while (p < n && isSpace(unitAt(html, p))) p++;
      const quote = html[p];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, p + 1);
        if (close === -1) return null;
        valueStart = p + 1;
        valueEnd = close;
        p = close + 1;
      } else {
        valueStart = p;
        while (p < n && !isSpace(unitAt(html, p)) && unitAt(html, p) !== GT) p++;
        valueEnd = p;
      }
    }
    // Names longer than any wanted one are not even lowercased.
    if (nameEnd - nameStart > 16) continue;
    const attribute = html.slice(nameStart, nameEnd).toLowerCase();
    if (!wanted.has(attribute)) continue;
    attributes ??= new Map();
    if (!attributes.has(attribute)) attributes.set(attribute, html.slice(valueStart, valueEnd));
  }
}

/** Just after the first `>` from `from`, or the end of the page. */
function after(html: string, needle: string | RegExp, from: number): number {
  if (typeof needle === "string") {
    const at = html.indexOf(needle, from);
    return at === -1 ? html.length : at + needle.length;
  }
  needle.lastIndex = from;
  const match = needle.exec(html);
  return match === null ? html.length : match.index + match[0].length;
}

/** Where a comment opened at `at` ("<!--") ends: "-->" or "--!>", or "<!-->" and "<!--->". */
function commentEnd(html: string, at: number): number {
  if (html.startsWith(">", at + 4)) return at + 5;
  if (html.startsWith("->", at + 4)) return at + 6;
  return after(html, /--!?>/g, at + 4);
}

const rawTextEnds = new Map<string, RegExp>();

/** Where the end tag closing raw text opened by `tag` starts, or -1. */
function rawTextEnd(html: string, tag: string, from: number): number {
  let pattern = rawTextEnds.get(tag);
  if (pattern === undefined) rawTextEnds.set(tag, (pattern = new RegExp(`</${tag}[\\t\\n\\f\\r />]`, "gi")));
  pattern.lastIndex = from;
  return pattern.exec(html)?.index ?? -1;
}

/** Scans `html` once, from start to end, calling `handler` for what the document holds. */
export function scanHtml(html: string, handler: HtmlHandler): void {
  const n = html.length;
  let templates = 0;
  let i = 0;
  const text = (from: number, to: number) => {
    if (templates === 0 && to > from) handler.text(from, to);
  };
  while (i < n) {
    const lt = html.indexOf("<", i);
    if (lt === -1) return text(i, n);
    text(i, lt);
    const next = unitAt(html, lt + 1);
    if (next === 0x21 /* ! */) {
      i = html.startsWith("<!--", lt) ? commentEnd(html, lt) : after(html, ">", lt + 2);
    } else if (next === 0x3f /* ? */) {
      i = after(html, ">", lt + 2);
    } else if (next === 0x2f /* / */) {
      const first = unitAt(html, lt + 2);
      if (!isAlpha(first)) {
        i = first === 0x3e ? lt + 3 : after(html, ">", lt + 2);
        continue;
      }
      const tag = readTag(html, lt + 2, NO_WANTED);
      if (tag === null) return;
      i = tag.next;
      if (tag.name === "template") templates = Math.max(0, templates - 1);
      else if (templates === 0) handler.end(tag.name);
    } else if (isAlpha(next)) {
      const tag = readTag(html, lt + 1, handler.attributes);
      if (tag === null) return;
      i = tag.next;
      if (tag.name === "template") templates++;
      else if (templates === 0) handler.start(tag.name, tag.attributes);
      if (tag.name === "plaintext") return text(i, n);
      if (RAW_TEXT.has(tag.name)) {
        const end = rawTextEnd(html, tag.name, i);
        if (end === -1) return;
        const closing = readTag(html, end + 2, NO_WANTED);
        if (closing === null) return;
        i = closing.next;
      }
    } else {
      text(lt, lt + 1);
      i = lt + 1;
    }
  }
}
