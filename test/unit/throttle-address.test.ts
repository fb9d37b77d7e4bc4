// The throttle counts an IPv6 /64 as one address (one subscriber holds a whole /64), and also
// counts networks: an IPv4 /24, an IPv6 /48.
import { describe, expect, it } from "vitest";
import { addressGroup, networkGroup } from "../../netlify/lib/owner/address-groups.ts";

describe("address groups", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["2001:db8:85a3:1:aaaa:bbbb:cccc:dddd", "2001:db8:85a3:1::/64"],
    ["2001:db8:85a3:1::1", "2001:db8:85a3:1::/64"],
    ["2001:DB8:0:0:1::1%eth0", "2001:db8:0:0::/64"],
    ["2001:db8::", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["not an ip", "not an ip"],
  ])("%s -> %s", (ip, group) => expect(addressGroup(ip)).toBe(group));
});

describe("network groups", () => {
  it.each([
    ["203.0.113.7", "203.0.113.0/24"],
    ["203.0.113.250", "203.0.113.0/24"],
    ["::ffff:203.0.113.7", "203.0.113.0/24"],
    ["2001:db8:85a3:1:aaaa:bbbb:cccc:dddd", "2001:db8:85a3::/48"],
    ["2001:db8:85a3:ffff::1", "2001:db8:85a3::/48"],
    ["2001:0DB8:0085::1%eth0", "2001:db8:85::/48"],
    ["::1", "0:0:0::/48"],
    ["not an ip", null],
    ["", null],
  ])("%s -> %s", (ip, group) => expect(networkGroup(ip)).toBe(group));

  it("puts every /64 of one /48 in one network, and two /48s apart", () => {
    const groups = new Set(
      Array.from({ length: 50 }, (_, i) => networkGroup(`2001:db8:85a3:${(i * 1300).toString(16)}::1`)),
    );
    expect(groups).toEqual(new Set(["2001:db8:85a3::/48"]));
    expect(networkGroup("2001:db8:85a4::1")).not.toBe(networkGroup("2001:db8:85a3::1"));
  });
});
