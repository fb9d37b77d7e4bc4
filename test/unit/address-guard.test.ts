import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ipLiteralOf, publicOnlyPolicy } from "../../netlify/lib/clients/address-guard.ts";
import { FetchRefused, fetchDocument } from "../../netlify/lib/clients/safe-fetch.ts";

// The policy as discovery gets it (ipaddr.js is loaded on first use).
const isPublicAddress = await publicOnlyPolicy();

describe("isPublicAddress", () => {
  it.each([
    "127.0.0.1",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "0.1.2.3",
    "255.255.255.255",
    "224.0.0.1",
    "198.18.0.1",
    "192.0.2.1",
    "::1",
    "::",
    "fe80::1",
    "fe80::1%eth0",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::7f00:1", // deprecated IPv4-compatible form
    "64:ff9b::a00:1", // NAT64 of 10.0.0.1
    "2002:a00:1::", // 6to4 of 10.0.0.1
    "2001::1", // Teredo
    "2001:db8::1", // documentation
    "",
    "not an address",
    "example.com",
    "[::1]",
    "999.1.1.1",
  ])("refuses %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:93.184.216.34"])("allows %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    ["http://[::1]/", "[::1]"],
    ["http://0x7f000001/", "127.0.0.1"],
    ["http://2130706433/", "127.0.0.1"],
    ["http://0177.0.0.1/", "127.0.0.1"],
    ["http://127.1/", "127.0.0.1"],
    ["http://[::ffff:127.0.0.1]/", "[::ffff:7f00:1]"],
  ])("refuses the host of %s (URL hostname %s)", (raw, hostname) => {
    const url = new URL(raw);
    expect(url.hostname).toBe(hostname);
    expect(ipLiteralOf(url.hostname)).not.toBeNull();
    expect(isPublicAddress(url.hostname)).toBe(false);
  });

  it("tells IP literals from domain names", () => {
    expect(ipLiteralOf("example.com")).toBeNull();
    expect(ipLiteralOf("localhost")).toBeNull();
    expect(ipLiteralOf("[2606:4700::1111]")).not.toBeNull();
    expect(ipLiteralOf("8.8.8.8")).not.toBeNull();
  });
});

describe("fetchDocument with the default policy", () => {
  let server: Server;
  let port: number;
  let requests = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.end("reached");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("reaches the local server when the policy allows it (the server would answer)", async () => {
    const before = requests;
    const doc = await fetchDocument(new URL(`http://localhost:${port}/`), { policy: () => true });
    expect(doc.body).toBe("reached");
    expect(requests).toBe(before + 1);
  });

  it("refuses a host name that resolves to loopback (localhost)", async () => {
    const before = requests;
    await expect(fetchDocument(new URL(`http://localhost:${port}/`))).rejects.toBeInstanceOf(FetchRefused);
    expect(requests).toBe(before);
  });

  it("refuses http://127.0.0.1:<port>/", async () => {
    const before = requests;
    await expect(fetchDocument(new URL(`http://127.0.0.1:${port}/`))).rejects.toBeInstanceOf(FetchRefused);
    expect(requests).toBe(before);
  });

  it("refuses http://[::1]:<port>/", async () => {
    await expect(fetchDocument(new URL(`http://[::1]:${port}/`))).rejects.toBeInstanceOf(FetchRefused);
  });

  it("refuses http://0x7f000001:<port>/ (normalised by the URL parser)", async () => {
    const before = requests;
    await expect(fetchDocument(new URL(`http://0x7f000001:${port}/`))).rejects.toBeInstanceOf(FetchRefused);
    expect(requests).toBe(before);
  });

  it("refuses schemes other than http and https", async () => {
    await expect(fetchDocument(new URL("file:///etc/passwd"))).rejects.toBeInstanceOf(FetchRefused);
    await expect(fetchDocument(new URL("ftp://example.com/"))).rejects.toBeInstanceOf(FetchRefused);
  });
});
