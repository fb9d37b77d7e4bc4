// The groups of addresses the guessing throttle counts failures by: an address (an IPv6 /64,
// which one subscriber holds whole), and its network (an IPv4 /24, an IPv6 /48), so that a
// guesser who rotates addresses within a network is still counted as one.
// (The address is the platform's, so plain parsing is enough: ipaddr.js, a 13 KB library,
// stays out of the functions that check passwords.)
import { isIPv4, isIPv6 } from "../core/ip-address.ts";

/** The eight 16-bit groups of an IPv6 address, as written (lower case, no leading zeros). */
function ipv6Groups(address: string): string[] {
  const [head = "", tail] = address.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail).flatMap((g) => (g.includes(".") ? ["0", "0"] : [g]));
  const full = [...before, ...Array<string>(Math.max(0, 8 - before.length - after.length)).fill("0"), ...after];
  return full.map((g) => g.replace(/^0+(?=.)/, ""));
}

/** The address without a zone, lower case, and an IPv4-mapped IPv6 address as its IPv4 one. */
function plain(ip: string): string {
  const address = ip.split("%", 1)[0]!.toLowerCase();
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1] ?? address;
}

/** One address: an IPv4 address, or the /64 of an IPv6 one. */
export function addressGroup(ip: string): string {
  const address = plain(ip);
  if (!isIPv6(address)) return address;
  return `${ipv6Groups(address).slice(0, 4).join(":")}::/64`;
}

/** Its network: the /24 of an IPv4 address, the /48 of an IPv6 one; null for anything else
 * (an address the platform did not give, counted by the address alone). */
export function networkGroup(ip: string): string | null {
  const address = plain(ip);
  if (isIPv4(address)) return `${address.split(".").slice(0, 3).join(".")}.0/24`;
  if (isIPv6(address)) return `${ipv6Groups(address).slice(0, 3).join(":")}::/48`;
  return null;
}
