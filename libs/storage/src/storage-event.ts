/**
 * The object notification MinIO publishes to NATS (`storage.events`), in the AWS record format.
 * The local S3 bridge publishes the same shape. MinIO URL-encodes object keys and s3rver does not:
 * `objectKeyOf` decodes in this one place.
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

export function toStorageNotification(record: StorageEventRecord): StorageNotification {
  return {
    EventName: record.eventName.startsWith('s3:') ? record.eventName : `s3:${record.eventName}`,
    Key: `${record.s3.bucket.name}/${record.s3.object.key}`,
    Records: [record],
  };
}
