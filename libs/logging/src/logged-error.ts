import pino from 'pino';
import { loggedObjectKey } from '@cp/contracts';

/** Fields of the S3 client's errors that name the object: its key and its resource path. */
const OBJECT_FIELDS = ['key', 'resource', 'objectName'] as const;

type Serialized = Record<string, unknown>;

function withoutFileNames(serialized: Serialized): Serialized {
  const copy: Serialized = { ...serialized };
  for (const field of OBJECT_FIELDS) {
    const value = copy[field];
    if (typeof value === 'string') {
      copy[field] = loggedObjectKey(value);
    }
  }
  if (copy.cause !== null && typeof copy.cause === 'object') {
    copy.cause = withoutFileNames(copy.cause as Serialized);
  }
  return copy;
}

/**
 * An error as the services' logs write it: pino's own serialization, but an object named by a storage error
 * (`key`, `resource`, also in its `cause`) loses its last segment when that is a client's file name, often a
 * person's name, which the log store would keep past the order's expiry (docs/operations.md, personal data).
 */
export function loggedError(error: unknown): unknown {
  // pino-http hands its custom serializer an error it already serialized (keeping the error's own type name).
  const serialized: unknown = error instanceof Error ? pino.stdSerializers.err(error) : error;
  return serialized !== null && typeof serialized === 'object' ? withoutFileNames(serialized as Serialized) : serialized;
}

/** The serializers every service logger uses (Nest's through nestjs-pino). */
export const LOG_SERIALIZERS = { err: loggedError };
