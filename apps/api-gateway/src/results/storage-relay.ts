import { Inject, Injectable } from '@nestjs/common';
import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';

const RELAY_TIMEOUT_MS = 30_000;

/**
 * Reads one object from storage with a client's presigned path and query, unchanged: storage checks the
 * signature and the expiry, so the gateway needs no storage credentials. The request goes to the internal
 * endpoint with the Host the URL was signed for; only the configured storage is ever contacted.
 */
@Injectable()
export class StorageRelay {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  /** The object's response, or null when the path does not resolve into the outputs bucket (`..`, another bucket). */
  open(pathAndQuery: string): Promise<IncomingMessage | null> {
    const { storageEndpoint, signedHost, bucket } = this.config.results;
    const target = new URL(pathAndQuery, storageEndpoint);
    if (!target.pathname.startsWith(`/${bucket}/`) || target.pathname.length <= bucket.length + 2) {
      return Promise.resolve(null);
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const outgoing = send(target, { method: 'GET', headers: { host: signedHost }, timeout: RELAY_TIMEOUT_MS }, resolve);
      outgoing.on('timeout', () => outgoing.destroy(new Error('storage did not answer in time')));
      outgoing.on('error', reject);
      outgoing.end();
    });
  }
}
