import { BlockList, isIP } from 'node:net';

export interface WebhookUrlPolicyOptions {
  /** Accept plain http:// (local development only). */
  allowHttp: boolean;
  /** Addresses allowed although private, loopback or link-local. */
  allowedTargetIps: readonly string[];
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

// Private, loopback, link-local (cloud metadata 169.254.169.254 lives there), CGNAT, unspecified, multicast
// and reserved ranges. Delivery checks the resolved address again; this gives early feedback for literals.
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

const BLOCKED_HOSTNAMES = [/^localhost$/i, /\.localhost$/i, /^metadata\.google\.internal$/i, /^metadata$/i];

export function isBlockedAddress(address: string, allowed: readonly string[] = []): boolean {
  const family = isIP(address);
  if (family === 0) {
    return false;
  }
  if (allowed.includes(address)) {
    return false;
  }
  // IPv4-mapped IPv6 (::ffff:a.b.c.d or ::ffff:xxxx:xxxx) is judged by its IPv4 address.
  const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (mapped) {
    const v4 = mapped[1] ?? [parseInt(mapped[2], 16) >> 8, parseInt(mapped[2], 16) & 255, parseInt(mapped[3], 16) >> 8, parseInt(mapped[3], 16) & 255].join('.');
    return isBlockedAddress(v4, allowed);
  }
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Rules for a webhook URL at create and update: absolute http(s) URL, HTTPS unless plain HTTP is switched
 * on for development, no credentials or fragment, and no private/loopback/link-local literal address or
 * well-known internal host name unless that address is allow-listed.
 */
export function checkWebhookUrl(raw: string, options: WebhookUrlPolicyOptions): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowHttp)) {
    return { ok: false, reason: options.allowHttp ? 'scheme must be http or https' : 'scheme must be https' };
  }
  if (url.username || url.password) {
    return { ok: false, reason: 'credentials in the URL are not allowed' };
  }
  if (url.hash) {
    return { ok: false, reason: 'fragments are not allowed' };
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) {
    return { ok: false, reason: 'no host' };
  }
  if (isIP(host) !== 0) {
    if (isBlockedAddress(host, options.allowedTargetIps)) {
      return { ok: false, reason: 'private, loopback, link-local or reserved address' };
    }
  } else if (BLOCKED_HOSTNAMES.some((pattern) => pattern.test(host)) && !options.allowedTargetIps.includes(host)) {
    return { ok: false, reason: 'internal host name' };
  }
  return { ok: true, url };
}
