// Local and CI stand-in for MinIO: an S3-compatible server (s3rver) whose object-created events are
// forwarded to NATS JetStream in the shape MinIO's bucket notifications publish, so the uploads
// service runs the production code path. s3rver does not verify SigV4 signatures (MinIO does).
//   S3_PORT=9000 S3_DIRECTORY=tmp/s3 NATS_URL=nats://127.0.0.1:4222 node -r ./tools/register.js tools/stack/s3-server.ts
import { ALL_STREAMS, STORAGE_EVENTS_SUBJECT } from '@cp/contracts';
import { ensureStreams, NATS_RECONNECT_OPTIONS, natsServers } from '@cp/messaging';
import { applyHttpTimeouts } from '@cp/runtime';
import { toStorageNotification } from '@cp/storage';
import { acceptStreamedUploads } from '@cp/testing';
import { connect } from 'nats';
import { mkdirSync } from 'node:fs';
import S3rver from 's3rver';

async function main(): Promise<void> {
  const port = Number(process.env.S3_PORT ?? 9000);
  const directory = process.env.S3_DIRECTORY ?? 'tmp/s3';
  mkdirSync(directory, { recursive: true });
  const nc = await connect({ servers: natsServers(process.env.NATS_URL ?? 'nats://127.0.0.1:4222'), name: 's3-bridge', ...NATS_RECONNECT_OPTIONS });
  // The services' replication: a bridge started first (or restarted) must not scale the streams back to one copy.
  await ensureStreams(await nc.jetstreamManager(), ALL_STREAMS, { replicas: Number(process.env.NATS_STREAM_REPLICAS ?? 1) });
  const js = nc.jetstream();
  const server = new S3rver({ address: '127.0.0.1', port, directory, silent: true, vhostBuckets: false });
  acceptStreamedUploads(server);
  server.on('event', (event) => {
    for (const record of event.Records) {
      if (!record.eventName.includes('ObjectCreated')) {
        continue;
      }
      const body = JSON.stringify(toStorageNotification(record));
      js.publish(STORAGE_EVENTS_SUBJECT, new TextEncoder().encode(body)).catch((error: unknown) => {
        // A lost notification is picked up by the uploads service's reconciliation sweep.
        process.stderr.write(`${JSON.stringify({ level: 'warn', service: 's3-bridge', msg: 'publish failed', err: String(error) })}\n`);
      });
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
