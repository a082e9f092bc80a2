import { StreamDefinition } from '@cp/contracts';
import { JetStreamManager, nanos, RetentionPolicy, ServerInfo, StorageType, StreamConfig } from 'nats';

function isNotFound(error: unknown): boolean {
  return error instanceof Error && /not found/i.test(error.message);
}

export interface EnsureStreamsOptions {
  /**
   * Copies of each stream (`num_replicas`); consumers keep `num_replicas` 0 and so inherit it. Applied on create
   * and on update: JetStream changes the replication of a live stream in place (its consumers follow).
   */
  replicas?: number;
}

/**
 * Refuses a replication the server cannot give, at start and with the setting named, instead of JetStream's
 * "insufficient resources" on the first stream. A server outside a cluster reports no `cluster`. A cluster
 * member lists the client address of every node it sees in `connect_urls` (absent when the cluster does not
 * advertise them: then JetStream's own answer is all there is); a node that is down is missing from that list,
 * so the peers of the existing streams (`knownPeers`, offline ones included) count too: a service that restarts
 * while one node of three is down must still start.
 */
export function checkStreamReplicas(replicas: number, server: Pick<ServerInfo, 'cluster' | 'connect_urls' | 'server_name'>, knownPeers = 0): void {
  if (replicas <= 1) {
    return;
  }
  if (!server.cluster) {
    throw new Error(`NATS_STREAM_REPLICAS=${replicas} needs a JetStream cluster of at least ${replicas} nodes; the server ${server.server_name} is not clustered`);
  }
  const nodes = Math.max(server.connect_urls?.length ?? 0, knownPeers);
  if (nodes > 0 && nodes < replicas) {
    throw new Error(`NATS_STREAM_REPLICAS=${replicas} needs a JetStream cluster of at least ${replicas} nodes; cluster ${server.cluster} has ${nodes}`);
  }
}

/** The most nodes any of these existing streams is placed on (its leader and replicas, offline ones included); 0 if none exists. */
export async function existingStreamPeers(jsm: JetStreamManager, definitions: StreamDefinition[]): Promise<number> {
  let peers = 0;
  for (const definition of definitions) {
    try {
      const info = await jsm.streams.info(definition.name);
      peers = Math.max(peers, info.cluster ? 1 + (info.cluster.replicas?.length ?? 0) : 0);
    } catch (error) {
      if (!isNotFound(error)) {
        throw error;
      }
    }
  }
  return peers;
}

/** Creates each stream or brings its configuration up to date; safe to run on every start of every replica. */
export async function ensureStreams(jsm: JetStreamManager, definitions: StreamDefinition[], options: EnsureStreamsOptions = {}): Promise<void> {
  for (const definition of definitions) {
    const config: Partial<StreamConfig> = {
      name: definition.name,
      subjects: definition.subjects,
      retention: definition.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos(definition.maxAgeSeconds * 1000),
      duplicate_window: nanos(definition.duplicateWindowSeconds * 1000),
      num_replicas: options.replicas ?? 1,
      // Direct gets (answered by any replica) let the queue metrics read a consumer's oldest message.
      allow_direct: true,
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
