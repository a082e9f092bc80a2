import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { behaveLikeMinio } from './s3rver-compat';

export interface TestS3Server {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  close(): Promise<void>;
}

/**
 * A real S3 server (s3rver) on loopback for an integration test, in a fresh temporary folder. It answers the
 * minio client's "list incomplete uploads" question with "none" (s3rver lacks ListMultipartUploads, which the
 * client asks before every streamed upload of unknown length), as tools/stack's S3 server does, so streamed
 * puts take the same multipart path as against MinIO.
 */
export async function startTestS3Server(): Promise<TestS3Server> {
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory: mkdtempSync(path.join(tmpdir(), 's3-')), silent: true, vhostBuckets: false });
  behaveLikeMinio(server);
  const { port } = await server.run();
  return { endpoint: `http://127.0.0.1:${port}`, close: () => server.close() };
}
