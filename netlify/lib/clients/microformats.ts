// The microformats parser, loaded only when an HTML page turns up (it is heavy).
import type { mf2 } from "microformats-parser";
import { htmlSubset, type Wanted } from "./html-subset.ts";
import { importCommonJs } from "../core/commonjs.ts";

type ParsedMicroformats = ReturnType<typeof mf2>;

/** The wanted rels and the first wanted root item of the page, or null when it cannot be parsed.
 * The parser sees only the bounded, well-formed part `htmlSubset` keeps. It refuses a page whose
 * <body> holds no element (a page of <link> tags alone is common), so an empty element is
 * appended: HTML parsing puts it in the body, and it adds no item and no rel. */
export async function parseMicroformats(
  html: string,
  baseUrl: string,
  wanted: Wanted,
): Promise<ParsedMicroformats | null> {
  // Loaded outside the try: a failure to load is the server's, never "no microformats".
  const { mf2: parse } = await importCommonJs(() => import("microformats-parser"));
  try {
    return parse(`${htmlSubset(html, wanted)}<span></span>`, { baseUrl });
  } catch {
    // Still thrown for, e.g., a relative <base href>.
    return null;
  }
}
