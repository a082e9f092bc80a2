import { inlineHandlerContext, inlineTransactions } from '@cp/messaging/testing';
import { MessageContract } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { HandlerContext, OutboxWriter } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { Readable } from 'node:stream';

/** Objects in memory with the storage calls the use cases make. */
export class MemoryStorage {
  readonly objects = new Map<string, { data: Buffer; contentType?: string }>();

  private static id(bucket: string, key: string): string {
    return `${bucket}/${key}`;
  }

  seed(bucket: string, key: string, data: Buffer): void {
    this.objects.set(MemoryStorage.id(bucket, key), { data });
  }

  read(bucket: string, key: string): Buffer | undefined {
    return this.objects.get(MemoryStorage.id(bucket, key))?.data;
  }

  stat(bucket: string, key: string): Promise<{ size: number; etag: string } | null> {
    const object = this.objects.get(MemoryStorage.id(bucket, key));
    return Promise.resolve(object ? { size: object.data.length, etag: String(object.data.length) } : null);
  }

  getBuffer(bucket: string, key: string): Promise<Buffer> {
    const object = this.read(bucket, key);
    return object ? Promise.resolve(object) : Promise.reject(Object.assign(new Error('NoSuchKey'), { code: 'NoSuchKey' }));
  }

  get(bucket: string, key: string): Promise<Readable> {
    return this.getBuffer(bucket, key).then((data) => Readable.from([data]));
  }

  async put(bucket: string, key: string, body: Buffer | Readable, contentType?: string): Promise<void> {
    const chunks: Buffer[] = [];
    if (Buffer.isBuffer(body)) {
      chunks.push(body);
    } else {
      for await (const chunk of body) {
        chunks.push(Buffer.from(chunk as Uint8Array));
      }
    }
    this.objects.set(MemoryStorage.id(bucket, key), { data: Buffer.concat(chunks), contentType });
  }

  asStorage(): ObjectStorage {
    return this as unknown as ObjectStorage;
  }
}

/** The outbox as a list of (subject, payload), in the order the use case wrote them. */
export class RecordingOutbox {
  readonly messages: Array<{ subject: string; payload: object }> = [];

  add<TData extends object>(_manager: Transaction, contract: MessageContract<TData>, data: TData): Promise<void> {
    this.messages.push({ subject: contract.subject, payload: data });
    return Promise.resolve();
  }

  subjects(): string[] {
    return this.messages.map((entry) => entry.subject);
  }

  asOutbox(): OutboxWriter {
    return this as unknown as OutboxWriter;
  }
}

export const fakeTransactions = inlineTransactions();

/** The first delivery of a job, its transaction run inline. */
export const fakeContext = (): HandlerContext => inlineHandlerContext();
