// IP address syntax, without node:net: loading that module costs a function ~5 ms of cold start,
// and these checks are all the server needs of it. The URL parser validates IPv6 literals.
import { urlOf } from "./urls.ts";

const IPV4_PART = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const IPV4 = new RegExp(`^${IPV4_PART}(\\.${IPV4_PART}){3}$`);

/** Dotted-decimal IPv4, as node:net's isIPv4 reads it. */
export function isIPv4(address: string): boolean {
  return IPV4.test(address);
}

/** An IPv6 address (no brackets, no zone). */
export function isIPv6(address: string): boolean {
  // The character check keeps anything but an address out of the URL below ("::1]@host").
  return /^[0-9a-fA-F:.]+$/.test(address) && address.includes(":") && urlOf(`http://[${address}]/`) !== null;
}

export function isIP(address: string): boolean {
  return isIPv4(address) || isIPv6(address);
}
