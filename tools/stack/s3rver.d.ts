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

  class S3rver extends EventEmitter {
    constructor(options: S3rverOptions);
    /** Koa's middleware list (s3rver is a Koa app); composed when the server starts. */
    middleware: Array<(context: KoaContext, next: () => Promise<void>) => Promise<void>>;
    /** Resolves to the address it listens on. */
    run(): Promise<AddressInfo>;
    /** The listening server, set by run(). */
    httpServer: import('node:http').Server;
    close(): Promise<void>;
    on(event: 'event', listener: (event: S3rverEvent) => void): this;
  }

  export = S3rver;
}
