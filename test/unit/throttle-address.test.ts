// The throttle counts an IPv6 /64 as one address (one subscriber holds a whole /64).
import { expect, it } from "vitest";
import { addressGroup } from "../../netlify/lib/owner/throttle.ts";
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
