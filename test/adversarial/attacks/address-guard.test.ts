// Attack catalogue: the address guard (SSRF). A client_id is a URL the attacker chooses, and
// the server fetches it: that fetch must never reach loopback, private, link-local or cloud
// metadata addresses, whether the URL names them directly, through a DNS answer (one address
// or several, or an answer that changes between check and connect), or through a redirect;
// and a slow, endless or oversized answer must cost no more than a bounded time and size.
//
// DNS is the one thing outside this machine, so it is the one thing replaced: node:dns's
// lookup answers for names under .attacker.test from the table below, and resolves anything
// else for real. The "internal service" is a real HTTP server on 127.0.0.1 that counts every
// request it gets: the guard holds when it is never reached.
import type { LookupAddress } from "node:dns";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { publicOnlyPolicy, type AddressPolicy } from "../../../netlify/lib/clients/address-guard.ts";
import { clearClientCache, discoverClient } from "../../../netlify/lib/clients/discovery.ts";
import { FetchFailed, FetchRefused, fetchDocument } from "../../../netlify/lib/clients/safe-fetch.ts";
import { selfTestEndpoint } from "../../../netlify/lib/endpoints/self-test.ts";
import { checkProfileLinks, SELF_TEST_CACHE_MS } from "../../../netlify/lib/owner/profile-links.ts";
import { fastRuntime } from "../../helpers/attack-kit.ts";
import { authorize } from "../../helpers/endpoints.ts";
import { authorizationParams, BASE } from "../../helpers/requests.ts";
import { serveHostile } from "../../helpers/hostile-responses.ts";

type Answer = string[] | (() => string[]);
const dns = vi.hoisted(() => ({ answers: new Map<string, Answer>(), queries: [] as string[] }));

vi.mock("node:dns", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:dns")>();
  type Callback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
  function lookup(hostname: string, options: unknown, callback?: unknown): void {
    const cb = (typeof options === "function" ? options : callback) as Callback;
    const opts = (typeof options === "object" && options !== null ? options : {}) as { all?: boolean };
    const answer = dns.answers.get(hostname);
    if (answer === undefined) return void real.lookup(hostname, opts as never, cb as never);
    dns.queries.push(hostname);
    const addresses = (typeof answer === "function" ? answer() : answer).map((address) => ({
      address,
      family: address.includes(":") ? 6 : 4,
    }));
    process.nextTick(() =>
      opts.all === true ? cb(null, addresses) : cb(null, addresses[0]!.address, addresses[0]!.family),
    );
  }
  return { ...real, default: { ...real, lookup }, lookup };
});

/** For tests of everything but the address rules: our local server stands in for a public site. */
const localIsPublic: AddressPolicy = (ip) => ip === "127.0.0.1";

let server: Server;
let port: number;
const hits: string[] = [];
const requestHeaders: IncomingMessage["headers"][] = [];

function route(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  hits.push(path);
  requestHeaders.push(req.headers);
  const host = req.headers.host ?? "";
  if (serveHostile(path, res)) return;
  if (path === "/client") {
    // An attacker's client document: it publishes a redirect URI on another site.
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify({
        client_id: `http://${host}/client`,
        client_name: "Internal",
        redirect_uris: ["https://evil.example/cb"],
      }),
    );
    return;
  }
  if (path === "/me") {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end('<link rel="authorization_endpoint" href="https://auth.jane.example/auth">');
    return;
  }
  if (path === "/declared-huge") {
    // Announces 100 MB, sends one byte, then waits: only the announcement can stop it early.
    res.writeHead(200, { "Content-Type": "text/html", "Content-Length": String(100 * 1024 * 1024) });
    res.write("x");
    return;
  }
  if (path === "/gzip-bomb") {
    res.writeHead(200, { "Content-Type": "text/html", "Content-Encoding": "gzip" });
    res.end(gzipSync(Buffer.alloc(20 * 1024 * 1024)));
    return;
  }
  const slow = /^\/slow-hop\/(\d)$/.exec(path);
  if (slow) {
    // Each hop answers after a pause: fine one by one, too slow all together.
    const timer = setTimeout(() => {
      res.writeHead(302, { Location: `/slow-hop/${Number(slow[1]) + 1}` });
      res.end();
    }, 200);
    res.on("close", () => clearTimeout(timer));
    return;
  }
  const to = /^\/redirect-to\/(.+)$/.exec(path);
  if (to) {
    res.writeHead(302, { Location: decodeURIComponent(to[1]!) });
    res.end();
    return;
  }
  if (path === "/loop") {
    res.writeHead(302, { Location: "/loop" });
    res.end();
    return;
  }
  res.writeHead(200, { "Content-Type": "text/plain" });
  res.end("reached");
}

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  hits.length = 0;
  requestHeaders.length = 0;
  dns.answers.clear();
  dns.queries.length = 0;
  clearClientCache();
});

/** The default guard, with a short budget so that a missing guard fails fast instead of hanging. */
async function expectRefused(url: string, options: { policy?: AddressPolicy } = {}): Promise<void> {
  await expect(fetchDocument(new URL(url), { timeoutMs: 1500, ...options })).rejects.toBeInstanceOf(FetchRefused);
  expect(hits).toEqual([]);
}

describe("address guard: internal addresses named directly", () => {
  it.each([
    ["loopback", "http://127.0.0.1:PORT/"],
    ["loopback, elsewhere in 127/8", "http://127.0.0.2:PORT/"],
    ["loopback in hexadecimal", "http://0x7f000001:PORT/"],
    ["loopback as one decimal number", "http://2130706433:PORT/"],
    ["loopback in octal", "http://0177.0.0.1:PORT/"],
    ["loopback shortened", "http://127.1:PORT/"],
    ["IPv6 loopback", "http://[::1]:PORT/"],
    ["IPv4-mapped IPv6 loopback", "http://[::ffff:127.0.0.1]:PORT/"],
    ["the unspecified address (connects to this host)", "http://0.0.0.0:PORT/"],
    ["the IPv6 unspecified address", "http://[::]:PORT/"],
    ["a private network (10/8)", "http://10.0.0.1/"],
    ["a private network (172.16/12)", "http://172.16.0.1/"],
    ["a private network (192.168/16)", "http://192.168.1.1/"],
    ["shared address space (100.64/10, Alibaba Cloud metadata)", "http://100.100.100.200/"],
    ["link-local: the cloud metadata service", "http://169.254.169.254/latest/meta-data/"],
    ["the metadata service as IPv4-mapped IPv6", "http://[::ffff:a9fe:a9fe]/"],
    ["the metadata service through NAT64", "http://[64:ff9b::a9fe:a9fe]/"],
    ["loopback in the deprecated IPv4-compatible IPv6 form", "http://[::7f00:1]:PORT/"],
    ["the metadata service in the deprecated IPv4-compatible IPv6 form", "http://[::a9fe:a9fe]/"],
    ["Oracle Cloud's metadata address (192.0.0.0/24)", "http://192.0.0.192/"],
    ["AWS's IPv6 metadata address (unique local)", "http://[fd00:ec2::254]/"],
    ["IPv6 link-local", "http://[fe80::1]/"],
    ["IPv6 site-local", "http://[fec0::1]/"],
    ["6to4 carrying a private address", "http://[2002:a00:1::]/"],
    ["multicast", "http://224.0.0.1/"],
    ["broadcast", "http://255.255.255.255/"],
  ])("%s: %s", async (_name, url) => {
    await expectRefused(url.replace("PORT", String(port)));
  });
});

describe("address guard: internal addresses reached by DNS", () => {
  it.each([
    ["loopback", ["127.0.0.1"]],
    ["IPv6 loopback", ["::1"]],
    ["IPv4-mapped loopback", ["::ffff:127.0.0.1"]],
    ["the unspecified address", ["0.0.0.0"]],
    ["a private network", ["10.1.2.3"]],
    ["a home router", ["192.168.0.1"]],
    ["the cloud metadata service", ["169.254.169.254"]],
    ["the metadata service, IPv4-mapped", ["::ffff:169.254.169.254"]],
    ["a unique local IPv6 address", ["fd12:3456::1"]],
    ["IPv6 link-local", ["fe80::1"]],
    ["the metadata service, IPv4-compatible IPv6", ["::a9fe:a9fe"]],
    ["shared address space", ["100.64.0.1"]],
    ["a public address listed with a loopback one", ["93.184.216.34", "127.0.0.1"]],
    ["a loopback address listed with a public one", ["127.0.0.1", "2606:4700::1111"]],
  ])("a name that resolves to %s is refused before any connection", async (_name, addresses) => {
    dns.answers.set("internal.attacker.test", addresses);
    await expectRefused(`http://internal.attacker.test:${port}/client`);
    expect(dns.queries).toEqual(["internal.attacker.test"]);
  });

  it("the control: the same name resolving to a (stand-in) public address is fetched", async () => {
    dns.answers.set("public.attacker.test", ["127.0.0.1"]);
    const doc = await fetchDocument(new URL(`http://public.attacker.test:${port}/`), { policy: localIsPublic });
    expect(doc.body).toBe("reached");
  });

  it("DNS rebinding: the name is resolved once, and the connection goes to exactly the address checked", async () => {
    // First answer: an allowed address. Every later answer: another one, which this test's
    // server does not listen on. A guard that checked one answer and let the socket resolve
    // again would connect to the second (and fail); the guard hands the socket its answer.
    let answers = 0;
    dns.answers.set("rebind.attacker.test", () => (answers++ === 0 ? ["127.0.0.1"] : ["127.0.0.3"]));
    const doc = await fetchDocument(new URL(`http://rebind.attacker.test:${port}/`), { policy: localIsPublic });
    expect(doc.body).toBe("reached");
    expect(dns.queries).toEqual(["rebind.attacker.test"]);
  });

  it("a redirect to a name that resolves to an internal address is refused at that hop", async () => {
    dns.answers.set("public.attacker.test", ["127.0.0.1"]);
    dns.answers.set("internal.attacker.test", ["10.0.0.7"]);
    const hop = encodeURIComponent("http://internal.attacker.test/latest/meta-data/");
    await expect(
      fetchDocument(new URL(`http://public.attacker.test:${port}/redirect-to/${hop}`), {
        policy: localIsPublic,
        timeoutMs: 1500,
      }),
    ).rejects.toBeInstanceOf(FetchRefused);
    expect(hits).toEqual([`/redirect-to/${hop}`]);
  });

  it.each([
    ["the metadata address", "http://169.254.169.254/latest/meta-data/"],
    ["loopback by its IPv6 name", "http://[::1]/"],
    ["a file", "file:///etc/passwd"],
    ["gopher (which can speak to other protocols)", "gopher://127.0.0.1:6379/_INFO"],
    ["ftp", "ftp://127.0.0.1/"],
  ])("a redirect to %s is refused", async (_name, target) => {
    const path = `/redirect-to/${encodeURIComponent(target)}`;
    await expect(
      fetchDocument(new URL(`http://127.0.0.1:${port}${path}`), { policy: localIsPublic, timeoutMs: 1500 }),
    ).rejects.toBeInstanceOf(FetchRefused);
    expect(hits).toEqual([path]);
  });

  it("end to end: a client_id whose name resolves to loopback is not fetched, so the redirect URI it publishes is not trusted", async () => {
    dns.answers.set("loopback.attacker.test", ["127.0.0.1"]);
    const rt = await fastRuntime({ discover: (clientId) => discoverClient(clientId) });
    const response = await authorize(
      rt,
      authorizationParams({
        client_id: `http://loopback.attacker.test:${port}/client`,
        redirect_uri: "https://evil.example/cb",
      }),
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(hits).toEqual([]);
    expect(dns.queries).toEqual(["loopback.attacker.test"]);
  });

  it("the self-test's fetch of the owner's page goes through the same guard outside development", async () => {
    dns.answers.set("jane.attacker.test", ["127.0.0.1"]);
    const rt = await fastRuntime({ env: { ME: "https://jane.attacker.test/" } });
    if (!rt.config.ok) throw new Error("config");
    const config = { ...rt.config.config, me: `http://jane.attacker.test:${port}/me` };
    const report = await checkProfileLinks(config);
    expect(report.fetched).toBe(false);
    expect(hits).toEqual([]);
  });
});

describe("the self-test: anyone may ask, so asking again costs no fetch of the owner's page", () => {
  const ask = (rt: Awaited<ReturnType<typeof fastRuntime>>) =>
    selfTestEndpoint(new Request(`${BASE}/indieauth/self-test/me`), rt);

  it("twenty calls, ten at once and ten one after another, fetch ME once; a minute later, once more", async () => {
    // Each fetch of ME starts with one lookup of its name (the guard then refuses 127.0.0.1).
    dns.answers.set("jane-once.attacker.test", ["127.0.0.1"]);
    const rt = await fastRuntime({ env: { ME: "https://jane-once.attacker.test/" } });
    const answers = await Promise.all(Array.from({ length: 10 }, () => ask(rt)));
    for (let i = 0; i < 10; i++) answers.push(await ask(rt));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(await answers[19]!.json()).toMatchObject({ me: "https://jane-once.attacker.test/", fetched: false });
    expect(dns.queries).toEqual(["jane-once.attacker.test"]);
    rt.clock.advance(SELF_TEST_CACHE_MS - 1);
    await ask(rt);
    expect(dns.queries).toHaveLength(1);
    rt.clock.advance(1);
    await ask(rt);
    expect(dns.queries).toEqual(["jane-once.attacker.test", "jane-once.attacker.test"]);
  });

  it("in development, where ME is the owner's own page being edited, every check fetches it", async () => {
    const rt = await fastRuntime({
      env: { CONTEXT: "dev", ME: `http://localhost:${port}/`, BASE_URL: "http://localhost:8888" },
    });
    for (let i = 0; i < 3; i++) expect((await ask(rt)).status).toBe(200);
    expect(hits).toHaveLength(3);
  });
});

describe("address guard: slow, endless and oversized answers", () => {
  const fetchLocal = (path: string, options: { timeoutMs?: number; maxBytes?: number } = {}) =>
    fetchDocument(new URL(`http://127.0.0.1:${port}${path}`), { policy: localIsPublic, ...options });

  it("headers that never come: the fetch ends at its time budget", async () => {
    await expect(fetchLocal("/silent", { timeoutMs: 300 })).rejects.toBeInstanceOf(FetchFailed);
  });

  it("a body that drips forever: the fetch ends at its time budget", async () => {
    await expect(fetchLocal("/drip", { timeoutMs: 300 })).rejects.toBeInstanceOf(FetchFailed);
  });

  it("redirects share one budget: three hops that each answer within it still run out of it together", async () => {
    await expect(fetchLocal("/slow-hop/0", { timeoutMs: 450 })).rejects.toBeInstanceOf(FetchFailed);
  });

  it("a body that never ends is cut off at the size limit", async () => {
    await expect(fetchLocal("/endless", { maxBytes: 64 * 1024 })).rejects.toBeInstanceOf(FetchRefused);
  });

  it("a body over the default limit (512 KB) is refused", async () => {
    await expect(fetchLocal("/big")).rejects.toBeInstanceOf(FetchRefused);
  });

  it("an announced size over the limit is refused at once, without waiting for the body", async () => {
    // With a 20 s budget, only the Content-Length check can end this before the test times out.
    await expect(fetchLocal("/declared-huge", { timeoutMs: 20_000 })).rejects.toBeInstanceOf(FetchRefused);
  });

  it("a compressed body is never inflated: the request asks for identity and the bytes are taken as sent", async () => {
    const doc = await fetchLocal("/gzip-bomb");
    expect(requestHeaders[0]!["accept-encoding"]).toBe("identity");
    expect(Buffer.byteLength(doc.body)).toBeLessThan(512 * 1024);
  });

  it("an endless chain of redirects is refused after three hops", async () => {
    await expect(fetchLocal("/loop")).rejects.toBeInstanceOf(FetchRefused);
    expect(hits).toEqual(["/loop", "/loop", "/loop", "/loop"]);
  });

  it("discovery survives all of these: the sign-in goes on with the client's own origin only", async () => {
    dns.answers.set("slow.attacker.test", ["127.0.0.1"]);
    for (const path of ["/silent", "/endless", "/big", "/loop"]) {
      const clientId = new URL(`http://slow.attacker.test:${port}${path}`);
      const info = await discoverClient(clientId, {
        fetcher: (url) => fetchDocument(url, { policy: localIsPublic, timeoutMs: 300, maxBytes: 64 * 1024 }),
      });
      expect(info).toEqual({ clientId: clientId.href, redirectUris: [], fetched: false });
    }
  });

  it("the defaults stay bounded: the production fetcher uses the public-only policy", async () => {
    expect((await publicOnlyPolicy())("127.0.0.1")).toBe(false);
    dns.answers.set("loopback.attacker.test", ["127.0.0.1"]);
    const info = await discoverClient(new URL(`http://loopback.attacker.test:${port}/client`));
    expect(info.fetched).toBe(false);
    expect(hits).toEqual([]);
  });
});
