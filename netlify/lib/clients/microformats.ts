// The microformats parser, loaded only when an HTML page turns up (it is heavy).
import type { mf2 } from "microformats-parser";

type ParsedMicroformats = ReturnType<typeof mf2>;

/** Parsed microformats and rels, or null when the page cannot be parsed. The parser refuses a
 * page whose <body> holds no element (a page of <link> tags alone is common), so an empty
 * element is appended: HTML parsing puts it in the body, and it adds no item and no rel. */
export async function parseMicroformats(html: string, baseUrl: string): Promise<ParsedMicroformats | null> {
  const { mf2: parse } = await import("microformats-parser");
  try {
    return parse(`${html}<span></span>`, { baseUrl });
  } catch {
    // Still thrown for, e.g., a relative <base href>.
    return null;
  }
}
