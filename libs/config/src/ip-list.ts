import { registerDecorator } from 'class-validator';
import { isIP } from 'node:net';

/** The entries of a comma-separated list (blank entries dropped). */
export function ipList(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

/** A comma-separated list of IP addresses (empty allowed), e.g. loopback targets a local test stack may reach. */
export function IsIpList(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isIpList',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must be a comma-separated list of IP addresses` },
      validator: { validate: (value: unknown) => typeof value === 'string' && ipList(value).every((entry) => isIP(entry) !== 0) },
    });
}
