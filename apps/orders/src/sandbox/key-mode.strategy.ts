import { KeyMode, ObjectKeys, OutboxMessage, packageFileName, StoredObjectRef } from '@cp/contracts';
import { ObjectStorage, writeZipPackage } from '@cp/storage';
import { Order, OrderOutputState } from '../domain/order';
import { OrderTypeDefinition, ProcessingContext } from '../order-types/order-type-definition';
import { inputRef, outputRef, packageRef } from '../order-types/order-outputs';
import { SampleFiles } from './sample-files';

/** Spec 4.12: test-key file keys are isolated logical keys under `test/`, never real objects. */
export const INPUT_KEY_PREFIX: Readonly<Record<KeyMode, string>> = { live: '', test: 'test/' };

/**
 * Everything test keys (sandbox) do differently, in one place per key mode: processing (simulated results
 * at once instead of jobs), which objects downloads hand out (sample files instead of outputs), and whether
 * the inputs are kept (test uploads are not). Chosen by `KeyModesService.of(order)`.
 */
export interface KeyModeStrategy {
  readonly mode: KeyMode;
  startProcessing(definition: OrderTypeDefinition, order: Order, context: ProcessingContext): OutboxMessage[];
  /** Spec 4.4/4.5: one output, or what the whole order downloads as (its single output or its ZIP). */
  downloadTarget(order: Order, output?: OrderOutputState): StoredObjectRef;
  /** Spec 4.17: the ZIP of all outputs, also for a single output. */
  archiveTarget(order: Order): Promise<StoredObjectRef>;
  /** An input image kept in storage (thumbnails), or null when inputs are not stored. */
  storedInput(order: Order): StoredObjectRef | null;
}

export class LiveMode implements KeyModeStrategy {
  readonly mode = 'live' as const;

  constructor(private readonly storage: ObjectStorage) {}

  startProcessing(definition: OrderTypeDefinition, order: Order, context: ProcessingContext): OutboxMessage[] {
    return definition.startLive(order, context);
  }

  downloadTarget(order: Order, output?: OrderOutputState): StoredObjectRef {
    const bucket = this.storage.buckets.outputs;
    const single = output ?? (order.outputs.length === 1 ? order.outputs[0] : undefined);
    return single ? outputRef(order, single, bucket) : packageRef(order, bucket, order.state.packageKey ?? '');
  }

  /**
   * Orders with two or more outputs already have their ZIP (the package job). A single output is its own
   * v3 download, so its ZIP is written here on first request, under the order prefix (retention deletes it).
   * The key carries the output's ETag, so a ZIP is only ever reused for exactly that output.
   */
  async archiveTarget(order: Order): Promise<StoredObjectRef> {
    const bucket = this.storage.buckets.outputs;
    if (order.outputs.length > 1 && order.state.packageKey) {
      return packageRef(order, bucket, order.state.packageKey);
    }
    const sources = order.outputs.map((output) => outputRef(order, output, bucket));
    const source = await this.storage.stat(bucket, sources[0]?.key ?? '');
    if (!source) {
      throw new Error(`output of order ${order.id} is not in storage`);
    }
    const key = `${ObjectKeys.orderPrefix(order.state.accountId, order.id)}archives/${source.etag.replace(/[^A-Za-z0-9]/g, '')}/${packageFileName(order.id)}`;
    if (!(await this.storage.stat(bucket, key))) {
      await writeZipPackage(this.storage, sources, { bucket, key });
    }
    return packageRef(order, bucket, key);
  }

  storedInput(order: Order): StoredObjectRef | null {
    if (order.failedBeforeAllFiles()) {
      // Its inputs are deleted when it fails (the uploads service): the v2 detail's thumbnail is null, never a dead link.
      return null;
    }
    const image = order.files.find((file) => file.mediaKind === 'image' && file.status === 'uploaded');
    return image
      ? inputRef(order, image, this.storage.buckets.inputs)
      : null;
  }
}

export class SandboxMode implements KeyModeStrategy {
  readonly mode = 'test' as const;

  constructor(private readonly samples: SampleFiles) {}

  startProcessing(definition: OrderTypeDefinition, order: Order, context: ProcessingContext): OutboxMessage[] {
    return definition.startSandbox(order, context);
  }

  downloadTarget(order: Order, output?: OrderOutputState): StoredObjectRef {
    return this.samples.forOrder(output ? 1 : order.outputs.length);
  }

  archiveTarget(): Promise<StoredObjectRef> {
    return Promise.resolve(this.samples.forOrder(2));
  }

  storedInput(): null {
    return null;
  }
}
