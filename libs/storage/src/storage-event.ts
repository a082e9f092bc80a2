/**
 * The object notification MinIO publishes to NATS (`storage.events`), in the AWS record format.
 * The local S3 bridge publishes the same shape, with s3rver's raw keys encoded as MinIO encodes them
 * (`toStorageNotification`); `objectKeyOf` decodes in this one place.
 */
export interface StorageEventRecord {
  eventName: string;
  s3: {
    bucket: { name: string };
    object: { key: string; size?: number; eTag?: string; sequencer?: string };
  };
}

export interface StorageNotification {
  EventName?: string;
  Key?: string;
  Records: StorageEventRecord[];
}

export function objectKeyOf(record: StorageEventRecord): string {
  const key = record.s3.object.key;
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return key;
  }
}

/**
 * A key as MinIO writes it in an event record: Go's `url.QueryEscape` (every byte but letters, digits and `-_.~`
 * percent-encoded, a space as `+`).
 */
export function minioEventKey(key: string): string {
  return encodeURIComponent(key)
    .replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/**
 * The notification MinIO would publish for a record of the local S3 server (s3rver), whose keys are raw: the
 * record's key encoded as MinIO's is (`objectKeyOf` decodes it), the notification's `Key` the bucket and the
 * decoded key, as MinIO sends it. A raw key was decoded once too often: `x%22y.png` was looked for as `x"y.png`
 * and `a+b.png` as `a b.png`, and their uploads were found only by the sweep, or never.
 */
export function toStorageNotification(record: StorageEventRecord): StorageNotification {
  const key = record.s3.object.key;
  return {
    EventName: record.eventName.startsWith('s3:') ? record.eventName : `s3:${record.eventName}`,
    Key: `${record.s3.bucket.name}/${key}`,
    Records: [{ ...record, s3: { ...record.s3, object: { ...record.s3.object, key: minioEventKey(key) } } }],
  };
}
