// Minimal typings for s3rver (the package ships none): the parts the local S3 bridge uses.
declare module 's3rver' {
  import { EventEmitter } from 'node:events';
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    directory: string;
    silent?: boolean;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    /** TLS: s3rver serves HTTPS when given a key and certificate. */
    key?: Buffer;
    cert?: Buffer;
  }

  interface S3rverEvent {
    Records: Array<{
      eventName: string;
      s3: { bucket: { name: string }; object: { key: string; size?: number; eTag?: string; sequencer?: string } };
    }>;
  }

  interface KoaContext {
    method: string;
    path: string;
    query: Record<string, string | string[] | undefined>;
    type: string;
    body: unknown;
  }

  /** An object as s3rver's store receives it on a PUT (a buffer, or the request body as a stream). */
  interface S3rverObject {
    bucket: string;
    key: string;
    content: Buffer | NodeJS.ReadableStream;
    metadata: Record<string, string>;
  }

  interface S3rverStore {
    getResourcePath(bucket: string, key: string | undefined, resource: 'object' | 'metadata' | 'uploads'): string;
    putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
    putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
  }

  class S3rver extends EventEmitter {
    constructor(options: S3rverOptions);
    /** Koa's middleware list (s3rver is a Koa app); composed when the server starts. */
    middleware: Array<(context: KoaContext, next: () => Promise<void>) => Promise<void>>;
    /** Resolves to the address it listens on. */
    run(): Promise<AddressInfo>;
    /** Its filesystem store (s3rver's `FilesystemStore`): the parts the MinIO compatibility shims replace or call. */
    store: S3rverStore;
    /** The listening server, set by run(). */
    httpServer: import('node:http').Server;
    close(): Promise<void>;
    on(event: 'event', listener: (event: S3rverEvent) => void): this;
  }

  export = S3rver;
}
