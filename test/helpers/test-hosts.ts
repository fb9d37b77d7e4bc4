// A client's public https website, for tests through `netlify dev`: an https server on
// loopback with a certificate made for the run, which the server under test reaches as
// https://client.test:<port>/ through test-network.mjs (the DNS answer and the route stand in
// for the internet; the SSRF guard and TLS verification run as deployed). `internal.test`
// answers 127.0.0.1 itself, which the guard must refuse. Given `names` (claude.ai, chatgpt.com...),
// the same server is also each of those on port 443, so a client's published document can be
// served byte for byte under its own address: https://claude.ai/oauth/mcp-oauth-client-metadata.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate } from "selfsigned";

/** A public address for client.test. Connections to it are routed to loopback in the
 * processes of netlify dev; no packet is ever sent to it. */
const PUBLIC_ADDRESS = "93.184.215.14";
const NAMES = ["client.test", "internal.test"];

export interface TestHostOptions {
  /** Real public names this host also answers, on https port 443 (no port in their URLs). */
  names?: string[];
}

export interface Served {
  status?: number;
  headers?: Record<string, string>;
  /** Text, or bytes (an image). */
  body: string | Buffer;
}

export interface TestHost {
  /** https://client.test:<port> */
  origin: string;
  /** https://internal.test:<port>: the same server, under a name that answers 127.0.0.1. */
  internalOrigin: string;
  /** Paths requested, in order. */
  requests: string[];
  /** https://name/path of each request, in order. */
  urls: string[];
  /** Answers a path on every name, or one URL (https://claude.ai/x) on its name only. */
  serve(pathOrUrl: string, answer: Served): void;
  /** The environment `netlify dev` needs to reach the host (pass to withEnv). */
  netlifyDevEnv: Record<string, string>;
  close(): Promise<void>;
}

async function certificates(names: string[]): Promise<{ caCert: string; key: string; cert: string }> {
  const notAfterDate = new Date(Date.now() + 24 * 60 * 60 * 1000);
  const ca = await generate([{ name: "commonName", value: "netlify-indieauth test CA" }], {
    keyType: "ec",
    curve: "P-256",
    algorithm: "sha256",
    notAfterDate,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: "commonName", value: "client.test" }], {
    keyType: "ec",
    curve: "P-256",
    algorithm: "sha256",
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames: names.map((value) => ({ type: 2 as const, value })) },
    ],
  });
  return { caCert: ca.cert, key: leaf.private, cert: leaf.cert };
}

/** The key an answer is kept under: "name/path" for one name, "/path" for all. */
function answerKey(pathOrUrl: string): string {
  if (pathOrUrl.startsWith("/")) return pathOrUrl;
  const url = new URL(pathOrUrl);
  return `${url.hostname}${url.pathname}`;
}

export async function startTestHost(options: TestHostOptions = {}): Promise<TestHost> {
  const extra = (options.names ?? []).map((name) => name.toLowerCase());
  const { caCert, key, cert } = await certificates([...NAMES, ...extra]);
  const dir = await mkdtemp(join(tmpdir(), "indieauth-test-host-"));
  const caFile = join(dir, "ca.pem");
  await writeFile(caFile, caCert);

  const answers = new Map<string, Served>();
  const requests: string[] = [];
  const urls: string[] = [];
  const server: Server = createServer({ key, cert }, (req, res) => {
    const path = new URL(req.url ?? "/", "https://client.test").pathname;
    const name = (req.headers.host ?? "").replace(/:\d+$/, "").toLowerCase();
    requests.push(path);
    urls.push(`https://${name}${path}`);
    const answer = answers.get(`${name}${path}`) ?? answers.get(path) ?? { status: 404, body: "not found" };
    res.writeHead(answer.status ?? 200, { "Content-Type": "application/json", ...answer.headers });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const preload = new URL("./test-network.mjs", import.meta.url).href;

  return {
    origin: `https://client.test:${port}`,
    internalOrigin: `https://internal.test:${port}`,
    requests,
    urls,
    serve: (pathOrUrl, answer) => void answers.set(answerKey(pathOrUrl), answer),
    netlifyDevEnv: {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${preload}`.trim(),
      NODE_EXTRA_CA_CERTS: caFile,
      TEST_DNS_ANSWERS: JSON.stringify({
        "client.test": PUBLIC_ADDRESS,
        "internal.test": "127.0.0.1",
        ...Object.fromEntries(extra.map((name) => [name, PUBLIC_ADDRESS])),
      }),
      TEST_NETWORK_ROUTES: JSON.stringify({ [PUBLIC_ADDRESS]: "127.0.0.1" }),
      TEST_NETWORK_PORTS: JSON.stringify(extra.length > 0 ? { [`${PUBLIC_ADDRESS}:443`]: port } : {}),
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `start` with these variables in process.env (which child processes inherit), then
 * puts process.env back as it was. */
export async function withEnv<T>(vars: Record<string, string>, start: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.assign(process.env, vars);
  try {
    return await start();
  } finally {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
