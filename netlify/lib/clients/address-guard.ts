// SSRF guard: which IP addresses the server may connect to when it fetches a client_id (IndieAuth
// 4.2). Only ordinary public unicast addresses pass; loopback, private networks, cloud metadata
// (169.254.169.254) and every special-purpose range are refused. ipaddr.js is loaded by name when
// the policy is first asked for: as a CommonJS package it is costly to import into a function's ES
// module (10-30 ms here), which every cold start of `auth` would otherwise pay.
import { isIP, isIPv4 } from "../core/ip-address.ts";
import { importCommonJs } from "../core/commonjs.ts";

/** Decides whether a connection to `ip` may be made (true = allowed). */
export type AddressPolicy = (ip: string) => boolean;

type IpAddr = typeof import("ipaddr.js");

/** URL hostnames wrap IPv6 literals in brackets ("[::1]"); addresses themselves do not. */
function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** The IP literal of a URL hostname without brackets, or null for a domain name. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = unbracket(hostname);
  return isIP(bare) ? bare : null;
}

function publicAddressCheck(ipaddr: IpAddr): AddressPolicy {
  // IANA has only allocated 2000::/3 as global unicast; everything else in IPv6 is reserved.
  // This also refuses the deprecated IPv4-compatible form ::a.b.c.d, which ipaddr.js calls
  // "unicast" but which some stacks would route to the embedded (possibly private) IPv4.
  const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3");

  /** True only for a public unicast address. IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as its
   * IPv4 address. 6to4, Teredo and NAT64 forms can carry a private IPv4 inside, so they are refused
   * outright (ipaddr.js gives them their own ranges, not "unicast"), as is anything unparsable. */
  return function isPublicAddress(ip: string): boolean {
    const text = unbracket(ip.trim());
    if (!ipaddr.isValid(text)) return false;
    let address: ReturnType<IpAddr["process"]>;
    try {
      // process() unwraps IPv4-mapped IPv6 to the IPv4 it carries.
      address = ipaddr.process(text);
    } catch {
      return false;
    }
    return address.range() === "unicast" && (address.kind() !== "ipv6" || address.match(IPV6_GLOBAL_UNICAST));
  };
}

let loading: Promise<AddressPolicy> | undefined;

/** The policy for client discovery: public addresses only. A failed load is not remembered:
 * the next fetch tries again. */
export function publicOnlyPolicy(): Promise<AddressPolicy> {
  loading ??= importCommonJs(() => import("ipaddr.js")).then(
    (ipaddr) => publicAddressCheck(ipaddr),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** This machine's own addresses only: for a receiver the owner runs locally in development
 * (a loopback NOTIFY_URL, which the configuration accepts nowhere else). */
export function loopbackOnlyPolicy(ip: string): boolean {
  const text = unbracket(ip.trim()).toLowerCase();
  if (isIPv4(text)) return text.startsWith("127.");
  return text === "::1" || (text.startsWith("::ffff:") && isIPv4(text.slice(7)) && text.slice(7).startsWith("127."));
}
