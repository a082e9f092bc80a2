import { Events, Jobs, message, OrderFailureCode, Streams } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { HEARTBEAT_JOB_ACK_WAIT_MS, MessagingRuntime } from '@cp/messaging';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ReceivedUpload, ReceiveUploadUseCase } from '../slots/receive-upload.use-case';
import { UploadSlotEntity } from '../slots/upload-slot.entity';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';
import { SourceFetcher, SourceFetchError } from './source-fetcher';

/** Fetches files given by URL (job.uploads.fetch) of live orders; a file that cannot be fetched fails its order. */
@Injectable()
export class FetchSourceConsumer implements OnModuleInit {
  private readonly logger = new Logger(FetchSourceConsumer.name);

  constructor(
    private readonly transactions: TransactionRepository,
    private readonly slots: UploadSlotsRepository,
    private readonly messaging: MessagingRuntime,
    private readonly fetcher: SourceFetcher,
    private readonly receive: ReceiveUploadUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'uploads-fetch-source',
      stream: Streams.jobs.name,
      message: Jobs.uploadsFetch,
      concurrency: 4,
      maxAttempts: 3,
      backoffMs: [2000, 10_000],
      ackWaitMs: HEARTBEAT_JOB_ACK_WAIT_MS,
      handle: async (job, context) => {
        const slot = await this.slots.findOne(null, { fileId: job.fileId });
        if (!slot || slot.status !== 'fetching' || !slot.sourceUrl) {
          if (slot) {
            await context.transaction((tx) => this.slots.releaseFetches(tx, slot.orderId, [slot.fileId]));
          }
          return;
        }
        if (slot.mode === 'test') {
          // Test keys never fetch (the sandbox's mock lifecycle, as for the test-upload sink): the file counts
          // as arrived and nothing is stored, so a test key cannot make the platform request a URL.
          await context.transaction(async (tx) => {
            await this.receive.execute(tx, slot.fileId, 0);
            await this.slots.releaseFetches(tx, slot.orderId, [slot.fileId]);
          });
          return;
        }
        try {
          // The fetch happens outside any transaction; only its outcome is written.
          const size = await this.fetcher.fetchInto(slot.sourceUrl, slot.bucket, slot.objectKey);
          // Held to the input limit like an upload (it matters when the limit is set below SOURCE_FETCH_MAX_BYTES).
          const decided: { received?: ReceivedUpload } = {};
          await context.transaction(async (tx) => {
            decided.received = await this.receive.execute(tx, slot.fileId, size);
            // The fetch is over: the account's next one may go.
            await this.slots.releaseFetches(tx, slot.orderId, [slot.fileId]);
          });
          if (decided.received) {
            await this.receive.discard(decided.received);
          }
        } catch (error) {
          if (error instanceof SourceFetchError && error.permanent) {
            this.logger.warn({ fileId: slot.fileId, orderId: slot.orderId, reason: error.message }, 'source URL refused');
            await context.transaction((tx) => this.fail(tx, slot, error.message));
            return;
          }
          // Network trouble or a 5xx/429 answer of the source: a counted attempt, redelivered after its backoff,
          // and the last one fails the file (onExhausted). Never held as an outage: the error's cause is the
          // egress module's, which the consumer never takes for our own infrastructure.
          throw error;
        }
      },
      onExhausted: async (job, _eventId, error) => {
        await this.transactions.run(async (tx) => {
          const slot = await this.slots.findOne(tx, { fileId: job.fileId });
          if (slot?.status === 'fetching') {
            await this.fail(tx, slot, error instanceof Error ? error.message : 'fetch failed');
          } else if (slot) {
            await this.slots.releaseFetches(tx, slot.orderId, [slot.fileId]);
          }
        });
      },
    });
  }

  /** The file cannot be fetched: its order fails (orders hears `file.failed`), and its place in the share is free. */
  private async fail(tx: Transaction, slot: UploadSlotEntity, reason: string): Promise<void> {
    await this.slots.markFailed(tx, slot.fileId, reason);
    await this.slots.releaseFetches(tx, slot.orderId, [slot.fileId]);
    await this.slots.publish(tx, [message(Events.fileFailed, { orderId: slot.orderId, fileId: slot.fileId, code: OrderFailureCode.WATERMARK_SOURCE_URL_FAILED })]);
  }
}
