import { isInternalHostName } from '@cp/contracts';
import { AddressPolicy } from '@cp/egress';
import { isIP } from 'node:net';

export interface WebhookUrlPolicyOptions {
  /** Accept plain http:// (local development only). */
  allowHttp: boolean;
  /** Addresses allowed although private, loopback or link-local. */
  allowedTargetIps: readonly string[];
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Whether a literal address is refused as a webhook target: the same judgement as the delivery's connected-socket
 * check (`AddressPolicy` of `@cp/egress`: only public unicast addresses, IPv4-mapped forms judged as IPv4, metadata
 * always refused), given early at create and update. A host name is not an address: false.
 */
export function isBlockedAddress(address: string, allowed: readonly string[] = []): boolean {
  if (isIP(address.replace(/^\[(.*)\]$/, '$1')) === 0) {
    return false;
  }
  return new AddressPolicy({ allowedIps: allowed }).refusalOf(address) !== null;
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
  } else if (isInternalHostName(host) && !options.allowedTargetIps.includes(host)) {
    return { ok: false, reason: 'internal host name' };
  }
  return { ok: true, url };
}
