// One request to a URL the owner gave (the console's MCP server check, the alerts' webhook), behind
// the address guard of client fetches (safe-fetch.ts): any status is answered (a 401 is what the
// check wants to see), with its headers; no redirect is followed; a time budget and a size cap.
import type { AddressPolicy } from "./address-guard.ts";
import { FetchFailed, FetchRefused, guardedRequest, loadNetwork } from "./safe-fetch.ts";

export interface ProbeAnswer {
  status: number;
  /** Lower-case header names; repeated headers joined with ", " (WWW-Authenticate too). */
  headers: Record<string, string>;
  body: string;
  /** The body went past the size cap and was cut there. */
  cut: boolean;
}

interface ProbeOptions {
  policy: AddressPolicy;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxBytes: number;
  /** Who asks, in the User-Agent (the MCP server check by default). */
  userAgent?: string;
}

const USER_AGENT = "netlify-indieauth (MCP server check)";

/** Sends the request; resolves with whatever the server answered, or rejects with FetchRefused
 * (address, scheme) or FetchFailed (network, time). */
export async function probe(url: URL, options: ProbeOptions): Promise<ProbeAnswer> {
  const network = await loadNetwork();
  const body = options.body === undefined ? undefined : Buffer.from(options.body, "utf8");
  const req = guardedRequest(url, options.policy, network, {
    method: options.method ?? "GET",
    headers: {
      ...options.headers,
      ...(body ? { "Content-Length": String(body.length) } : {}),
      "User-Agent": options.userAgent ?? USER_AGENT,
    },
  });
  return new Promise<ProbeAnswer>((resolve, reject) => {
    const timer = setTimeout(
      () => req.destroy(new FetchFailed(`no answer within ${options.timeoutMs / 1000} seconds`)),
      options.timeoutMs,
    );
    req.on("error", (error) => {
      clearTimeout(timer);
      reject(error instanceof FetchRefused || error instanceof FetchFailed ? error : new FetchFailed(error.message));
    });
    req.on("response", (res) => {
      const headers: Record<string, string> = {};
      for (const [name, values] of Object.entries(res.headersDistinct)) if (values) headers[name] = values.join(", ");
      const chunks: Buffer[] = [];
      let size = 0;
      let cut = false;
      const done = () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          headers,
          body: new TextDecoder("utf-8").decode(Buffer.concat(chunks)),
          cut,
        });
      };
      res.on("data", (chunk: Buffer) => {
        if (cut) return;
        const room = options.maxBytes - size;
        chunks.push(chunk.subarray(0, Math.max(0, room)));
        size += chunk.length;
        if (size > options.maxBytes) {
          cut = true;
          res.destroy();
          done();
        }
      });
      res.on("end", done);
      res.on("error", (error) => {
        clearTimeout(timer);
        if (!cut) reject(new FetchFailed(`its answer broke off: ${error.message}`));
      });
    });
    req.end(body);
  });
}
