import { ApiKeyRevokedEvent, EventEnvelope, Events as Messages } from '@cp/contracts';
import { NatsConnectionService } from '@cp/messaging';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Events, JSONCodec, Subscription } from 'nats';
import { AuthenticatedKeyCache } from './authenticated-key-cache';

/**
 * Every replica hears every revocation: a plain NATS subscription on the event's subject (the outbox relay
 * publishes it into JetStream, which core subscribers also receive), not a durable consumer that would hand
 * each event to only one replica. After a reconnect the whole cache is dropped, since events may have been
 * missed meanwhile.
 */
@Injectable()
export class KeyRevocationListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(KeyRevocationListener.name);
  private subscription?: Subscription;
  private stopped = false;

  constructor(
    private readonly nats: NatsConnectionService,
    private readonly cache: AuthenticatedKeyCache,
  ) {}

  onApplicationBootstrap(): void {
    const codec = JSONCodec<EventEnvelope<ApiKeyRevokedEvent>>();
    this.subscription = this.nats.nc.subscribe(Messages.apiKeyRevoked.subject, {
      callback: (error, message) => {
        if (error) {
          this.logger.warn({ err: error }, 'revocation subscription error; dropping the key cache');
          this.cache.clear();
          return;
        }
        try {
          const keyId = codec.decode(message.data).data.keyId;
          this.cache.forgetKey(String(keyId));
        } catch (decodeError) {
          this.logger.warn({ err: decodeError }, 'unreadable revocation event; dropping the key cache');
          this.cache.clear();
        }
      },
    });
    void this.watchReconnects();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    this.subscription?.unsubscribe();
  }

  private async watchReconnects(): Promise<void> {
    for await (const status of this.nats.nc.status()) {
      if (this.stopped) {
        return;
      }
      if (status.type === Events.Reconnect || status.type === Events.Disconnect) {
        this.cache.clear();
      }
    }
  }
}
