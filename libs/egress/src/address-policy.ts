import ipaddr from 'ipaddr.js';

/** Which addresses a caller may reach besides public unicast ones. */
export interface AddressPolicyOptions {
  /**
   * Addresses reachable although not public (a local test stack's servers). Compared after normalisation, so
   * `::ffff:127.0.0.1` is the same destination as `127.0.0.1`; nothing else of a private range is let through.
   */
  allowedIps?: readonly string[];
  /**
   * Every private address (not metadata nor unspecified ones): for tests (refused in production by the callers' config),
   * and for a client held to one configured origin (`EgressClientOptions.origin`: the operator's own service).
   */
  allowPrivate?: boolean;
}

/**
 * Cloud metadata and host-agent endpoints: never a legitimate target, refused even when a caller allows private
 * addresses or lists them (AWS/GCP/Azure/OpenStack 169.254.169.254, AWS IPv6 fd00:ec2::254, ECS task metadata
 * 169.254.170.2, Alibaba 100.100.100.200, Azure's public-range wire server 168.63.129.16).
 */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2:0:0:0:0:0:254', '169.254.170.2', '100.100.100.200', '168.63.129.16']);

function canonical(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  return address.kind() === 'ipv6' ? (address as ipaddr.IPv6).toNormalizedString() : address.toString();
}

/** The address in one canonical form (IPv4-mapped IPv6 as IPv4), or null when it is not an IP address. */
export function normaliseIp(address: string): string | null {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(bare) ? canonical(ipaddr.process(bare)) : null;
}

/**
 * Judges one IP address: null when it may be connected to, else why not. Only public unicast addresses pass
 * (ipaddr.js ranges: loopback, private, link-local, CGNAT, unique-local, multicast, reserved, NAT64, 6to4,
 * Teredo and the rest are refused); IPv4-mapped IPv6 is judged as the IPv4 address it maps to.
 */
export class AddressPolicy {
  private readonly allowed: ReadonlySet<string>;
  private readonly allowPrivate: boolean;

  constructor(options: AddressPolicyOptions = {}) {
    this.allowed = new Set((options.allowedIps ?? []).map((ip) => normaliseIp(ip) ?? ip));
    this.allowPrivate = options.allowPrivate ?? false;
  }

  refusalOf(address: string): string | null {
    const bare = address.replace(/^\[(.*)\]$/, '$1');
    if (!ipaddr.isValid(bare)) {
      return `${address} is not an IP address`;
    }
    const ip = ipaddr.process(bare);
    const normalised = canonical(ip);
    if (METADATA.has(normalised)) {
      return `${address} is a cloud metadata address`;
    }
    const range = ip.range();
    if (range === 'unspecified') {
      return `${address} is an unspecified address`;
    }
    // IPv4-compatible IPv6 (::a.b.c.d, deprecated) reads as unicast to ipaddr.js but names an IPv4 host.
    if (range === 'unicast' && ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) {
      return `${address} is an IPv4-compatible IPv6 address`;
    }
    if (this.allowed.has(normalised) || this.allowPrivate) {
      return null;
    }
    return range === 'unicast' ? null : `${address} is not a public address (${range})`;
  }
}
