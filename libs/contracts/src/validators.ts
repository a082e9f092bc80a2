import { isIP } from 'node:net';
import { ClassConstructor, Type } from 'class-transformer';
import { IsObject, registerDecorator, ValidateNested, ValidationOptions } from 'class-validator';
import ipaddr from 'ipaddr.js';

/** `::/96`: the deprecated IPv4-compatible IPv6 addresses. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];

/** Length in Unicode code points (what a person calls characters), not UTF-16 units. */
export function CodePointLength(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'codePointLength',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && [...value].length >= min && [...value].length <= max,
      },
    });
}

const PRIVATE_HOST = /^(localhost|.*\.localhost|.*\.local|.*\.internal|metadata\.google\.internal)$/i;

/**
 * An absolute https URL whose host is a public DNS name or a public IP literal. The address actually
 * connected to is checked again when the file is fetched (a public name can resolve to a private address).
 */
export function isPublicHttpsUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 2048) {
    return false;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.username || url.password || !url.hostname) {
    return false;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    return !isPrivateAddress(host);
  }
  return host.includes('.') && !PRIVATE_HOST.test(host);
}

/**
 * An absolute https URL without credentials: the shape checked on the request; where the host may point is
 * decided by the service that accepts it (`isPublicHttpsUrl`, or an operator's allowed IPs).
 */
export function isHttpsUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 4096) {
    return false;
  }
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && !url.username && !url.password && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** A public HTTPS URL, or an HTTPS URL whose host is one of `allowedIps` (a local test stack's servers). */
export function isPermittedHttpsUrl(value: unknown, allowedIps: readonly string[]): boolean {
  if (isPublicHttpsUrl(value)) {
    return true;
  }
  return isHttpsUrl(value) && allowedIps.includes(new URL(value as string).hostname.replace(/^\[|\]$/g, ''));
}

/**
 * Anything but a global unicast address: loopback, private, link-local, CGNAT, benchmark, documentation,
 * multicast, unspecified, metadata, and IPv6 forms that embed an IPv4 address (IPv4-mapped in any
 * spelling such as `::ffff:7f00:1`, IPv4-compatible `::a.b.c.d`, NAT64, 6to4, Teredo). Ranges from
 * ipaddr.js (IANA special-purpose registries); an unparsable address counts as private.
 */
export function isPrivateAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').split('%')[0]);
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      return isPrivateAddress(v6.toIPv4Address().toString());
    }
    if (v6.match(IPV4_COMPATIBLE)) {
      return true;
    }
  }
  return parsed.range() !== 'unicast';
}

export function IsHttpsUrl(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isHttpsUrl',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: { validate: isHttpsUrl },
    });
}

export function IsPublicHttpsUrl(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isPublicHttpsUrl',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: { validate: isPublicHttpsUrl },
    });
}

/**
 * One nested object of class `type()`, validated with its own rules. IsObject too: class-validator validates each
 * element of an array given in the object's place, so `[]` passed every rule of the object (found by API fuzzing).
 */
export function IsNestedObject(type: () => ClassConstructor<object>): PropertyDecorator {
  const decorators = [IsObject(), ValidateNested(), Type(type)];
  return (target, property) => decorators.forEach((decorate) => decorate(target, property));
}
