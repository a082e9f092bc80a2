import { ALL_STREAMS, StreamDefinition } from '@cp/contracts';
import { DiscardPolicy, JetStreamManager, nanos, NatsError, RetentionPolicy, ServerInfo, StorageType, StreamConfig } from 'nats';

function isNotFound(error: unknown): boolean {
  return error instanceof Error && /not found/i.test(error.message);
}

/** How long the streams and consumers are retried at start while JetStream elects leaders (a node lost or starting). */
export const JETSTREAM_SETUP_DEADLINE_MS = 30_000;
const SETUP_RETRY_FIRST_MS = 250;
const SETUP_RETRY_MAX_MS = 2000;

/** nats.js codes of a request nobody answered or answered in time, or of a connection between nodes. */
const ELECTION_CODES = new Set(['503', 'TIMEOUT', 'DISCONNECT', 'CONNECTION_REFUSED', 'CONNECTION_TIMEOUT']);
/**
 * JetStream API errors of a cluster that is electing or catching up: 10008 "JetStream system temporarily
 * unavailable", 10074 "JetStream cluster can not handle request" (no meta leader), 10005 "no suitable peers for
 * placement" and 10023 "insufficient resources" (a node restarting is not counted yet), 10118 "stream is offline".
 */
const ELECTION_ERR_CODES = new Set([10008, 10074, 10005, 10023, 10118]);
const ELECTION_MESSAGES = /temporarily unavailable|can not handle request|no suitable peers|insufficient resources|stream is offline|no responders|timeout/i;

/**
 * A JetStream management request that failed because leaders are being elected (a node of the cluster was
 * lost or is starting): worth repeating for a few seconds, unlike a refused configuration.
 */
export function isJetStreamElectionError(error: unknown): boolean {
  if (!(error instanceof Error)) {
    return false;
  }
  const { code, api_error: apiError } = error as Error & { code?: unknown; api_error?: { err_code?: number } };
  if (typeof code === 'string' && ELECTION_CODES.has(code)) {
    return true;
  }
  if (apiError?.err_code !== undefined) {
    return ELECTION_ERR_CODES.has(apiError.err_code);
  }
  return ELECTION_MESSAGES.test(error.message);
}

export interface ElectionRetryOptions {
  /** Total time allowed, from the first attempt; default JETSTREAM_SETUP_DEADLINE_MS. */
  deadlineMs?: number;
  /** First pause between attempts (doubling to 2 s); default 250 ms. */
  pauseMs?: number;
  /** Told about each failure that is retried. */
  onRetry?: (error: unknown, attempt: number) => void;
}

/**
 * Runs a set-up step (streams, consumers) again while it fails on a leader election, within a bounded deadline;
 * then, or on any other failure, throws the error itself (the service does not start and says why).
 */
export async function retryDuringElection<T>(step: () => Promise<T>, options: ElectionRetryOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.deadlineMs ?? JETSTREAM_SETUP_DEADLINE_MS);
  let pauseMs = options.pauseMs ?? SETUP_RETRY_FIRST_MS;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await step();
    } catch (error) {
      if (!isJetStreamElectionError(error) || Date.now() + pauseMs > deadline) {
        throw error;
      }
      options.onRetry?.(error, attempt);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      pauseMs = Math.min(pauseMs * 2, SETUP_RETRY_MAX_MS);
    }
  }
}

export interface EnsureStreamsOptions {
  /**
   * Copies of each stream (`num_replicas`); consumers keep `num_replicas` 0 and so inherit it. Applied on create
   * and on update: JetStream changes the replication of a live stream in place (its consumers follow).
   */
  replicas?: number;
  /**
   * `NATS_STREAM_MAX_MIB` in bytes: each stream is bounded to its `sizeShare` of it (`max_bytes`, with its
   * `discard` policy). Unbounded when absent (only tools and tests leave it out).
   */
  maxBytes?: number;
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

/** JetStream's "insufficient storage resources" (10047): the streams' reserved sizes do not fit the file store. */
const STORAGE_RESOURCES_EXCEEDED = 10047;

/** The streams' size bounds together, in units of `NATS_STREAM_MAX_MIB`. */
export const RESERVED_SHARES = ALL_STREAMS.reduce((sum, stream) => sum + (stream.sizeShare ?? 0), 0);

/** JetStream's refusal of a size bound the file store cannot reserve, with the setting that chose it named. */
function withStorageAdvice(error: unknown, definition: StreamDefinition, config: Partial<StreamConfig>): unknown {
  if (!(error instanceof NatsError) || error.api_error?.err_code !== STORAGE_RESOURCES_EXCEEDED) {
    return error;
  }
  return new Error(
    `stream ${definition.name}: JetStream cannot reserve max_bytes ${config.max_bytes} on its file store (${error.message}); ` +
      `lower NATS_STREAM_MAX_MIB or give the NATS servers more JetStream storage (the streams reserve ${RESERVED_SHARES} × NATS_STREAM_MAX_MIB on each node that holds a copy)`,
  );
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
      max_bytes: options.maxBytes === undefined || definition.sizeShare === undefined ? -1 : Math.floor(options.maxBytes * definition.sizeShare),
      discard: definition.discard === 'new' ? DiscardPolicy.New : DiscardPolicy.Old,
      // Direct gets (answered by any replica) let the queue metrics read a consumer's oldest message.
      allow_direct: true,
    };
    try {
      try {
        await jsm.streams.info(definition.name);
        await jsm.streams.update(definition.name, config);
      } catch (error) {
        if (!isNotFound(error)) {
          throw error;
        }
        await jsm.streams.add(config);
      }
    } catch (error) {
      throw withStorageAdvice(error, definition, config);
    }
  }
}
