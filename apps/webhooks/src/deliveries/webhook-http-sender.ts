import { Inject, Injectable } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { WEBHOOKS_SETTINGS, WebhooksSettings } from '../webhooks.config';

/** Spec 6.3 / 8: the receiver answers within 5 seconds. */
export const DELIVERY_TIMEOUT_MS = 5000;
const MAX_ERROR_LENGTH = 500;

export interface SendOutcome {
  success: boolean;
  /** HTTP status, or null when no response came back (timeout, refused, blocked target). */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  kind: 'success' | 'http_error' | 'timeout' | 'network_error' | 'blocked';
}

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * One POST, never following redirects (3xx is a failure). The filtering agents check the address actually
 * connected to after DNS resolution, so a host name that resolves to a private or metadata address is refused.
 */
@Injectable()
export class WebhookHttpSender {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(@Inject(WEBHOOKS_SETTINGS) settings: WebhooksSettings) {
    const filter = { allowPrivateIPAddress: false, allowMetaIPAddress: false, allowIPAddressList: [...settings.allowedTargetIps] };
    this.httpAgent = new RequestFilteringHttpAgent({ ...filter, keepAlive: false });
    this.httpsAgent = new RequestFilteringHttpsAgent({ ...filter, keepAlive: false });
  }

  send(request: SendRequest, timeoutMs = DELIVERY_TIMEOUT_MS): Promise<SendOutcome> {
    const started = Date.now();
    const finish = (outcome: Omit<SendOutcome, 'durationMs'>): SendOutcome => ({
      ...outcome,
      error: outcome.error ? outcome.error.slice(0, MAX_ERROR_LENGTH) : null,
      durationMs: Date.now() - started,
    });
    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: Omit<SendOutcome, 'durationMs'>): void => {
        if (!settled) {
          settled = true;
          clearTimeout(deadline);
          resolve(finish(outcome));
        }
      };
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        resolve(finish({ success: false, statusCode: null, error: 'invalid URL', kind: 'network_error' }));
        return;
      }
      const isHttps = url.protocol === 'https:';
      const body = Buffer.from(request.body, 'utf8');
      let outgoing: http.ClientRequest;
      try {
        outgoing = (isHttps ? https : http).request(url, {
          method: 'POST',
          agent: isHttps ? this.httpsAgent : this.httpAgent,
          headers: {
            ...request.headers,
            'Content-Type': 'application/json',
            'Content-Length': String(body.length),
            'User-Agent': 'ContentProtection-Webhooks/1.0',
          },
        });
      } catch (error) {
        // A literal IP address is checked synchronously by the filtering agent.
        resolve(finish(this.connectionFailure(error)));
        return;
      }
      // One deadline for the whole exchange (connect, send, status line), not an idle timeout.
      const deadline = setTimeout(() => {
        settle({ success: false, statusCode: null, error: `no response within ${timeoutMs} ms`, kind: 'timeout' });
        outgoing.destroy();
      }, timeoutMs);
      outgoing.on('response', (response) => {
        const status = response.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        settle({
          success: ok,
          statusCode: status,
          error: ok ? null : status >= 300 && status < 400 ? `redirect ${status} not followed` : `HTTP ${status}`,
          kind: ok ? 'success' : 'http_error',
        });
        // Only the status counts: the body is not read, so a receiver cannot hold the slot by streaming.
        response.destroy();
      });
      outgoing.on('error', (error: Error) => settle(this.connectionFailure(error)));
      outgoing.end(body);
    });
  }

  private connectionFailure(error: unknown): Omit<SendOutcome, 'durationMs'> {
    const message = error instanceof Error ? error.message : String(error);
    const blocked = /is not allowed/i.test(message);
    return {
      success: false,
      statusCode: null,
      error: blocked ? 'target address is not allowed (private, loopback, link-local or metadata)' : message || 'connection failed',
      kind: blocked ? 'blocked' : 'network_error',
    };
  }
}
