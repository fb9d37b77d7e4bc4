// IP syntax without node:net (core/ip-address.ts) must read addresses exactly as node:net does:
// the address guard and the throttle's IPv6 grouping rely on it.
import { isIPv4 as netIsIPv4, isIPv6 as netIsIPv6 } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isIP, isIPv4, isIPv6 } from "../../netlify/lib/core/ip-address.ts";

const samples = [
  "127.0.0.1",
  "8.8.8.8",
  "255.255.255.255",
  "256.1.1.1",
  "01.2.3.4",
  "1.2.3",
  "1.2.3.4.5",
  "0x7f.0.0.1",
  " 1.2.3.4",
  "1.2.3.4 ",
  "::1",
  "::",
  "2606:4700::1111",
  "::ffff:127.0.0.1",
  "fe80::1",
  "1:2:3:4:5:6:7:8",
  "1:2:3:4:5:6:7:8:9",
  "1::2::3",
  "::1]@evil.example",
  "[::1]",
  "fe80::1%eth0",
  "g::1",
  "12345::",
  "localhost",
  "example.com",
  "",
  ":",
  "1.2.3.4:80",
];

describe("IP address syntax", () => {
  it.each(samples)("reads %j as node:net does", (address) => {
    expect(isIPv4(address)).toBe(netIsIPv4(address));
    expect(isIPv6(address)).toBe(netIsIPv6(address) && !address.includes("%"));
  });

  it("agrees with node:net on generated addresses and strings", () => {
    const candidates = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.ipV4Extended(),
      fc.string({ unit: fc.constantFrom(..."0123456789abcdef:.[]%") }),
    );
    fc.assert(
      fc.property(candidates, (address) => {
        expect(isIPv4(address)).toBe(netIsIPv4(address));
        expect(isIPv6(address)).toBe(netIsIPv6(address) && !address.includes("%"));
        expect(isIP(address)).toBe(isIPv4(address) || isIPv6(address));
      }),
      { numRuns: 2000 },
    );
  });
});
