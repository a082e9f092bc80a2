import { StreamDefinition } from '@cp/contracts';
import { JetStreamManager, nanos, RetentionPolicy, StorageType, StreamConfig } from 'nats';

function isNotFound(error: unknown): boolean {
  return error instanceof Error && /not found/i.test(error.message);
}

/** Creates each stream or brings its configuration up to date; safe to run on every start of every replica. */
export async function ensureStreams(jsm: JetStreamManager, definitions: StreamDefinition[]): Promise<void> {
  for (const definition of definitions) {
    const config: Partial<StreamConfig> = {
      name: definition.name,
      subjects: definition.subjects,
      retention: definition.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos(definition.maxAgeSeconds * 1000),
      duplicate_window: nanos(definition.duplicateWindowSeconds * 1000),
    };
    try {
      await jsm.streams.info(definition.name);
      await jsm.streams.update(definition.name, config);
    } catch (error) {
      if (!isNotFound(error)) {
        throw error;
      }
      await jsm.streams.add(config);
    }
  }
}
