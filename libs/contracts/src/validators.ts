import { isIP } from 'node:net';
import { ClassConstructor, Transform, Type } from 'class-transformer';
import { IsObject, ValidateBy, ValidateIf, ValidateNested, ValidationOptions } from 'class-validator';
import ipaddr from 'ipaddr.js';
import { parse as parseHostName } from 'tldts';

/** `::/96`: the deprecated IPv4-compatible IPv6 addresses. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];

/** Length in Unicode code points (what a person calls characters), not UTF-16 units. */
export function CodePointLength(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    { name: 'codePointLength', validator: { validate: (value: unknown) => typeof value === 'string' && [...value].length >= min && [...value].length <= max } },
    options,
  );
}

/**
 * Host names that point inside the operator's network or at the machine itself, or at nothing public: single labels
 * (`metadata`, a cluster service's short name), `localhost` and `*.localhost`, `*.local` (mDNS and `cluster.local`),
 * `*.svc` (cluster services), `*.internal` (cloud and cluster zones, `metadata.google.internal`), `*.home.arpa`
 * (home networks, RFC 8375; `arpa` itself is an ICANN suffix), and every name not under a public suffix of the
 * ICANN section of the Public Suffix List (tldts): a cluster service qualified by its namespace (`minio.minio-system`;
 * one whose namespace is also a TLD, such as `storage`, passes here and is refused by the address check),
 * `*.corp`, `*.lan`, the reserved `*.test`, `*.example` and `*.invalid`, and strings that are not host names.
 * Compared without the trailing dots a fully qualified name may carry (`localhost.` is `localhost` to a resolver).
 * Refused where a URL is accepted; the address actually connected to is checked again when it is used (a public
 * name can resolve to a private address).
 */
export function isInternalHostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, '');
  if (!name.includes('.') || /(^|\.)(localhost|local|svc|internal|home\.arpa)$/.test(name)) {
    return true;
  }
  // Without the list's private section: `foo.github.io` is public under `io`; a name under no ICANN suffix resolves
  // nowhere on the public internet, only through a resolver of the operator's own.
  return parseHostName(name, { allowPrivateDomains: false }).isIcann !== true;
}

/**
 * An absolute https URL whose host is a public DNS name or a public IP literal. The address actually
 * connected to is checked again when the file is fetched (a public name can resolve to a private address).
 */
export function isPublicHttpsUrl(value: unknown): boolean {
  const url = httpsUrl(value, 2048);
  return url !== null && isPublicHost(url);
}

/**
 * An absolute https URL without credentials: the shape checked on the request; where the host may point is
 * decided by the service that accepts it (`isPublicHttpsUrl`, or an operator's allowed IPs).
 */
export function isHttpsUrl(value: unknown): boolean {
  return httpsUrl(value, 4096) !== null;
}

/**
 * An HTTPS URL (`isHttpsUrl`, up to 4,096 characters as the zero-copy target's schema says) whose host is public or
 * one of `allowedIps` (a local test stack's servers). Not `isPublicHttpsUrl`'s 2,048: a presigned URL carrying a
 * session token (`X-Amz-Security-Token`) is often longer, and was refused although the API documents 4,096.
 */
export function isPermittedHttpsUrl(value: unknown, allowedIps: readonly string[]): boolean {
  const url = httpsUrl(value, 4096);
  return url !== null && (isPublicHost(url) || allowedIps.includes(bareHost(url)));
}

/**
 * The URL when `value` is a string of at most `maxLength` characters naming https, a host, no credentials, and not
 * port 0 (nothing listens there: every fetch or delivery would fail); otherwise null.
 */
function httpsUrl(value: unknown, maxLength: number): URL | null {
  if (typeof value !== 'string' || value.length > maxLength) {
    return null;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  return url.protocol === 'https:' && !url.username && !url.password && url.hostname.length > 0 && url.port !== '0' ? url : null;
}

/** The URL's host is a public DNS name or a public IP literal. */
function isPublicHost(url: URL): boolean {
  const host = bareHost(url);
  if (isIP(host)) {
    return !isPrivateAddress(host);
  }
  return !isInternalHostName(host);
}

/** The host without the brackets of an IPv6 literal. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
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
  return ValidateBy({ name: 'isHttpsUrl', validator: { validate: isHttpsUrl } }, options);
}

export function IsPublicHttpsUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name: 'isPublicHttpsUrl', validator: { validate: isPublicHttpsUrl } }, options);
}

/**
 * An optional field of a public request (body or query): it may be left out, and when it is present its rules apply.
 * class-validator's `IsOptional` skips every rule for `null` as well as for a missing key, so `null` passed where no
 * field of the API is nullable (the spec and the OpenAPI document type none so): a webhook's `"isActive": null` reached
 * a NOT NULL column (500), and `"originalFileUrl": null` was a body other than the same body without the field for
 * idempotency (409). Here only a missing key (`undefined`) skips the rules; `null` is a value, which fails them:
 * 400 VALIDATION_FAILED (docs/api-decisions.md, "`null` in a request field").
 */
export function IsOptionalNotNull(options?: ValidationOptions): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined, options);
}

/**
 * A string field stored without its leading and trailing white space (`String.prototype.trim`: spaces, tabs, line
 * breaks, no-break and ideographic spaces): trimmed as the request is built, before the field's rules judge it, so
 * a value that is only white space is judged as the empty string it would be stored as (`IsNotEmpty`, a minimum
 * length: 400 VALIDATION_FAILED). Trimming after validation let `"name": "   "` through and stored `""`.
 * Anything but a string is left as it is for the type rule to refuse.
 */
export function Trimmed(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));
}

/**
 * One nested object of class `type()`, validated with its own rules. IsObject too: class-validator validates each
 * element of an array given in the object's place, so `[]` passed every rule of the object (found by API fuzzing).
 */
export function IsNestedObject(type: () => ClassConstructor<object>): PropertyDecorator {
  const decorators = [IsObject(), ValidateNested(), Type(type)];
  return (target, property) => decorators.forEach((decorate) => decorate(target, property));
}

const DATE_PARTS = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_PARTS = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/**
 * `YYYY-MM-DD` naming a day of the (proleptic Gregorian, UTC) calendar. Checked by round trip: the UTC date built
 * from the three numbers must give them back. A pattern alone let `2026-02-30` through, which `Date` quietly
 * rolls over to March 2 (the stats of the wrong week, or a retry range ending elsewhere than asked).
 */
export function isCalendarDate(value: unknown): boolean {
  const parts = typeof value === 'string' ? DATE_PARTS.exec(value) : null;
  if (!parts) {
    return false;
  }
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  // setUTCFullYear, not Date.UTC, which reads the years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * A calendar date, or a date-time `YYYY-MM-DDThh:mm[:ss[.fff]]` with `Z` or a `±hh:mm` offset whose every field is
 * in range (hour 00–23, minute and second 00–59, offset below 24 hours). `Date` accepts `T24:00` and rolls
 * impossible days over, so the parts are checked here rather than by parsing.
 */
export function isCalendarDateOrDateTime(value: unknown): boolean {
  if (isCalendarDate(value)) {
    return true;
  }
  const parts = typeof value === 'string' ? DATE_TIME_PARTS.exec(value) : null;
  if (!parts || !isCalendarDate(parts[1])) {
    return false;
  }
  const [hour, minute, second, offsetHour, offsetMinute] = parts.slice(2).map((part) => Number(part ?? '0'));
  return hour <= 23 && minute <= 59 && second <= 59 && offsetHour <= 23 && offsetMinute <= 59;
}

export function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name: 'isCalendarDate', validator: { validate: isCalendarDate } }, options);
}

export function IsCalendarDateOrDateTime(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name: 'isCalendarDateOrDateTime', validator: { validate: isCalendarDateOrDateTime } }, options);
}

/**
 * The first key of `plain` (at any depth) that did not reach its counterpart in `built`, or null. class-transformer
 * silently skips some keys when it builds a DTO: `__proto__` and `constructor`, and any key whose name the new
 * instance already answers with a function or a getter (`toString`, `valueOf`, `hasOwnProperty`,
 * `__defineGetter__`, a DTO's own methods…). class-validator's whitelist only sees the built instance, so such a
 * key was never "unknown": it vanished and the request passed (the gateway's pipe and the RPC pipe check with it).
 * Comparing own keys (never `in` or `obj[key]` on the plain side, which would find the prototype's members) catches
 * exactly what was lost. Iterative: the input
 * hygiene bounds the depth, but a walk of request data never recurses on the stack.
 */
export function firstUnbuiltKey(plain: unknown, built: unknown): string | null {
  const pending: Array<[unknown, unknown]> = [[plain, built]];
  while (pending.length > 0) {
    const [source, target] = pending.pop() as [unknown, unknown];
    if (source === null || typeof source !== 'object' || target === null || typeof target !== 'object') {
      // A primitive, or a value a transformer turned into another kind: nothing of the request can hide there.
      continue;
    }
    if (Array.isArray(source)) {
      if (Array.isArray(target)) {
        source.forEach((item, index) => pending.push([item, target[index]]));
      }
      continue;
    }
    for (const key of Object.keys(source)) {
      if (!Object.prototype.hasOwnProperty.call(target, key)) {
        return key;
      }
      pending.push([(source as Record<string, unknown>)[key], (target as Record<string, unknown>)[key]]);
    }
  }
  return null;
}
