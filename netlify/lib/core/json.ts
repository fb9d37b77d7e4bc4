// Untrusted text read as JSON without a try at every reader.

/** The value the text holds, or undefined where it is not JSON (no JSON text parses to undefined). */
export function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
