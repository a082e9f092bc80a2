// Local and CI stand-in for MinIO: an S3-compatible server (s3rver) whose object-created events are
// forwarded to NATS JetStream in the shape MinIO's bucket notifications publish, so the uploads
// service runs the production code path. s3rver does not verify SigV4 signatures (MinIO does).
//   S3_PORT=9000 S3_DIRECTORY=tmp/s3 NATS_URL=nats://127.0.0.1:4222 node -r ./tools/register.js tools/stack/s3-server.ts
import { DEFAULT_NATS_STREAM_MAX_MIB } from '@cp/config';
import { ALL_STREAMS, STORAGE_EVENTS_SUBJECT } from '@cp/contracts';
import { ensureStreams, NATS_RECONNECT_OPTIONS, natsServers } from '@cp/messaging';
import { applyHttpTimeouts } from '@cp/runtime';
import { toStorageNotification } from '@cp/storage';
import { behaveLikeMinio } from '@cp/testing';
import { connect, JetStreamClient } from 'nats';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import S3rver from 's3rver';

/** How long a notification is retried (MinIO keeps retrying from its queue directory; the uploads sweep is the last resort). */
const NOTIFY_RETRY_MS = 60_000;
/**
 * Per publish: a request lost with a killed JetStream node is given up after this and sent again (the same
 * `Nats-Msg-Id`, so JetStream stores it once), instead of the client's 5 s default.
 */
const NOTIFY_PUBLISH_TIMEOUT_MS = 2000;
const NOTIFY_RETRY_PAUSE_MS = 250;

/**
 * Publishes one notification until JetStream acknowledges it, as MinIO's NATS target does with a queue directory.
 * A JetStream leader election (a node of the cluster killed) answers "no responders" or nothing for seconds:
 * a notification dropped then left its order waiting for the uploads sweep (10 s and more).
 */
async function publishNotification(js: JetStreamClient, body: string): Promise<void> {
  const msgID = randomUUID();
  const until = Date.now() + NOTIFY_RETRY_MS;
  for (;;) {
    try {
      await js.publish(STORAGE_EVENTS_SUBJECT, new TextEncoder().encode(body), { msgID, timeout: NOTIFY_PUBLISH_TIMEOUT_MS });
      return;
    } catch (error) {
      if (Date.now() + NOTIFY_RETRY_PAUSE_MS > until) {
        // A lost notification is picked up by the uploads service's reconciliation sweep.
        process.stderr.write(`${JSON.stringify({ level: 'warn', service: 's3-bridge', msg: 'publish failed', err: String(error) })}\n`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, NOTIFY_RETRY_PAUSE_MS));
    }
  }
}

async function main(): Promise<void> {
  const port = Number(process.env.S3_PORT ?? 9000);
  const directory = process.env.S3_DIRECTORY ?? 'tmp/s3';
  mkdirSync(directory, { recursive: true });
  const nc = await connect({ servers: natsServers(process.env.NATS_URL ?? 'nats://127.0.0.1:4222'), name: 's3-bridge', ...NATS_RECONNECT_OPTIONS });
  // The services' replication: a bridge started first (or restarted) must not scale the streams back to one copy.
  // The same bounds as the services set (NATS_STREAM_MAX_MIB), so whichever starts last leaves the streams as configured.
  const maxBytes = Number(process.env.NATS_STREAM_MAX_MIB ?? DEFAULT_NATS_STREAM_MAX_MIB) * 1024 * 1024;
  await ensureStreams(await nc.jetstreamManager(), ALL_STREAMS, { replicas: Number(process.env.NATS_STREAM_REPLICAS ?? 1), maxBytes });
  const js = nc.jetstream();
  const server = new S3rver({ address: '127.0.0.1', port, directory, silent: true, vhostBuckets: false });
  behaveLikeMinio(server);
  server.on('event', (event) => {
    for (const record of event.Records) {
      if (!record.eventName.includes('ObjectCreated')) {
        continue;
      }
      void publishNotification(js, JSON.stringify(toStorageNotification(record)));
    }
  });
  await server.run();
  // Presigned uploads and downloads of clients reuse keep-alive sockets like API calls do.
  applyHttpTimeouts(server.httpServer);
  process.stdout.write(`${JSON.stringify({ level: 'info', service: 's3-bridge', msg: `S3 server on 127.0.0.1:${port}` })}\n`);
  const shutdown = (): void => {
    void server
      .close()
      .then(() => nc.drain())
      .finally(() => process.exit(0));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`s3-server: ${String(error)}\n`);
  process.exit(1);
});
