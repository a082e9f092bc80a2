import { isIP } from 'node:net';
import { registerDecorator, ValidationOptions } from 'class-validator';

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

/** Loopback, private, link-local, CGNAT, multicast, unspecified and metadata addresses (v4 and v6). */
export function isPrivateAddress(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) {
    const [a, b] = v4.split('.').map(Number);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 192 && b === 0) ||
      (a === 198 && (b === 18 || b === 19)) ||
      a >= 224
    );
  }
  const v6 = address.toLowerCase();
  return v6 === '::' || v6 === '::1' || /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6) || /^ff/.test(v6);
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
