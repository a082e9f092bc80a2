import type { FileSource } from '@cp/sdk';

/** A command-line file argument as the SDK takes it: an HTTPS URL the service fetches itself, else a local path. */
export function fileSource(argument: string): FileSource {
  return /^https:\/\//i.test(argument) ? { url: argument } : argument;
}
