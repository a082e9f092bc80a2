import {
  Events,
  ExtractOutcome,
  isV2Retired,
  KeyMode,
  MediaKind,
  message,
  OrderFailureCode,
  OrderStatus,
  OrderType,
  OutboxMessage,
  OutputStatus,
  ReportLocale,
  ReportStatus,
  StoredObjectRef,
  WebhookLink,
} from '@cp/contracts';

/**
 * The order aggregate: every rule of spec 3.1 in plain TypeScript (no TypeORM, no NATS). Use cases load it
 * through `OrdersRepository`, call one transition, and save it with the events the transition returned
 * (one transaction). Nothing else changes an order's status.
 */

export type ApiVersion = 'v2' | 'v3';

/** Options an order type keeps from its creation request (plain JSON). */
export type OrderOptions = Record<string, unknown>;

export type OrderFileRole = 'input' | 'original' | 'inspected';
export type OrderFileStatus = 'awaiting_upload' | 'uploaded' | 'failed';

export interface OrderState {
  id: string;
  accountId: string;
  mode: KeyMode;
  type: OrderType;
  apiVersion: ApiVersion;
  status: OrderStatus;
  processingDelayed: boolean;
  failureCode: string | null;
  /** Credits charged at creation (0 for test orders); restored once if the order fails. */
  creditsCharged: number;
  /** The single output or the ZIP that `download` hands out. */
  packageKey: string | null;
  /** The type's creation options (anti-AI: strength, zero-copy targets); null for types without any. */
  options: OrderOptions | null;
  /** The type's own result (AI detection: the analysis of each image; extract: the detection outcome); null until it has one. */
  typeResult: OrderOptions | null;
  expiresAt: Date;
  completedAt: Date | null;
  failedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface OrderFileState {
  id: string;
  position: number;
  role: OrderFileRole;
  fileName: string;
  sourceUrl: string | null;
  mediaKind: MediaKind;
  status: OrderFileStatus;
  size: string | null;
}

export interface OrderOutputState {
  /** `{inputFileId}-{ordinal}` */
  fileId: string;
  inputFileId: string;
  inputPosition: number;
  outputIndex: number;
  watermarkText: string;
  status: OutputStatus;
  mediaKind: MediaKind;
  objectKey: string | null;
  failureCode: string | null;
}

export interface OrderReportState {
  locale: ReportLocale;
  status: ReportStatus;
}

/** A change of the account's credits that must be applied with the order (once per reference). */
export interface CreditMovement {
  amount: number;
  reference: string;
  reason: string;
}

/** What an order type reports when an order completes (the completed event and the webhook payload). */
export interface OrderCompletion {
  download?: StoredObjectRef | null;
  extract?: ExtractOutcome | null;
  webhookData?: Record<string, unknown>;
  /** Objects the webhook links to besides the download (presigned by the webhooks service). */
  links?: WebhookLink[];
}

/** How often an output's progress is recorded on its order (`progressed`); a quarter of the shortest stuck-order bound. */
export const OUTPUT_PROGRESS_RECORD_MS = 15_000;

const FINAL: ReadonlySet<OrderStatus> = new Set(['complete', 'failed', 'expired']);

/** What a new order is made of: its fields as the type's creation rules decided them, and its ids. */
export interface NewOrderState {
  id: string;
  accountId: string;
  mode: KeyMode;
  type: OrderType;
  apiVersion: ApiVersion;
  creditsCharged: number;
  options: OrderOptions | null;
  expiresAt: Date;
  createdAt: Date;
}

/** A new order's file: where it comes from (upload or URL); its id is taken before the order is made. */
export type NewOrderFile = Omit<OrderFileState, 'position' | 'status' | 'size'>;

export class Order {
  private readonly credits: CreditMovement[] = [];

  /**
   * A new order, `pending` with its files awaiting their upload (or fetch), nothing charged yet: `created()`
   * is its first transition. Its outputs are made once the file ids are known.
   */
  static create(fields: NewOrderState, files: readonly NewOrderFile[], outputs: (files: OrderFileState[]) => OrderOutputState[]): Order {
    const fileStates = files.map((file, position): OrderFileState => ({ ...file, position, status: 'awaiting_upload', size: null }));
    const state: OrderState = {
      ...fields,
      status: 'pending',
      processingDelayed: false,
      failureCode: null,
      packageKey: null,
      typeResult: null,
      completedAt: null,
      failedAt: null,
      updatedAt: fields.createdAt,
    };
    return new Order(state, fileStates, outputs(fileStates), []);
  }

  constructor(
    readonly state: OrderState,
    readonly files: OrderFileState[] = [],
    readonly outputs: OrderOutputState[] = [],
    readonly reports: OrderReportState[] = [],
  ) {}

  get id(): string {
    return this.state.id;
  }

  get status(): OrderStatus {
    return this.state.status;
  }

  /** Credit movements made by transitions since the order was loaded; the repository applies them on save. */
  takeCreditMovements(): CreditMovement[] {
    return this.credits.splice(0, this.credits.length);
  }

  // ---- questions ----------------------------------------------------------------------------------------

  isFinal(): boolean {
    return FINAL.has(this.state.status);
  }

  /** Retention over: announced (`expired`) or due by the clock (spec 3.1 "retention period ends"). */
  isExpired(now: Date): boolean {
    return this.state.status === 'expired' || this.state.expiresAt <= now;
  }

  /** Results can be downloaded: complete, within retention, and the type produces files. */
  canDownload(now: Date): boolean {
    // `noDownload`: the type keeps no result file (zero-copy anti-AI delivered to the client; AI detection).
    return this.state.status === 'complete' && !this.isExpired(now) && this.outputs.length > 0 && this.state.options?.noDownload !== true;
  }

  /** Spec 2.2: upload URLs are only handed out while the order waits for uploads. */
  acceptsUploads(now: Date): boolean {
    return this.state.status === 'pending' && !this.isExpired(now);
  }

  /** Its files can still arrive (uploaded or fetched): pending, or started at once with no job sent yet, within retention. */
  waitsForFiles(now: Date): boolean {
    return this.awaitsFiles() && !this.isExpired(now);
  }

  /**
   * Failed without ever having all its files, so it never started: the uploads service deletes the inputs it had at
   * once (`CloseFailedOrderSlotsUseCase`), and nothing may point at them any more. A file counts as in only once
   * uploads said so, after it marked the slot uploaded, so every order whose inputs uploads deleted answers true
   * (one whose last `file.uploaded` was on its way may answer true with its inputs kept until retention).
   */
  failedBeforeAllFiles(): boolean {
    return this.state.status === 'failed' && this.files.some((file) => file.status !== 'uploaded');
  }

  /** Files that still need an upload by the client (not fetched from a URL). */
  filesAwaitingUpload(): OrderFileState[] {
    return this.files.filter((file) => file.status === 'awaiting_upload' && !file.sourceUrl);
  }


  /** Waiting for files: pending, or started at once with no job sent yet. */
  private awaitsFiles(): boolean {
    return this.state.status === 'pending' || this.startedBeforeFiles();
  }

  /** `inProgress` from `startBeforeFiles`, its outputs not queued yet. */
  private startedBeforeFiles(): boolean {
    return this.state.status === 'inProgress' && this.outputs.length > 0 && this.outputs.every((output) => output.status === 'pending');
  }

  allOutputsCompleted(): boolean {
    return this.outputs.length > 0 && this.outputs.every((output) => output.status === 'completed');
  }

  // ---- transitions (each returns the events to publish) -------------------------------------------------

  /**
   * Creation (`pending`; types that start at once call `startProcessing` next): the live price is charged
   * (the ledger refuses it when the balance is too low) and the status announced.
   */
  created(reason: string): OutboxMessage[] {
    if (this.state.creditsCharged > 0) {
      this.credits.push({ amount: -this.state.creditsCharged, reference: `charge:${this.state.id}`, reason });
    }
    return [this.statusChanged()];
  }

  /**
   * A file arrived. When `allFilesUploaded()` is true afterwards, the caller starts processing
   * (`startProcessing`, then the type's jobs in the same transaction).
   */
  fileUploaded(fileId: string, size: number, now: Date): OutboxMessage[] {
    const file = this.files.find((candidate) => candidate.id === fileId);
    if (!file || file.status !== 'awaiting_upload' || !this.awaitsFiles()) {
      return [];
    }
    file.status = 'uploaded';
    file.size = String(size);
    this.touch(now);
    return [];
  }

  /**
   * Every file of an order waiting for its files is in (spec 3.1 "all files uploaded (both files for
   * extract)"): a pending order, or one that started at once and has not sent its jobs yet.
   */
  allFilesUploaded(): boolean {
    return this.awaitsFiles() && this.files.every((file) => file.status === 'uploaded');
  }

  /** A file could not be obtained (upload refused, URL fetch failed): the order still waiting for it fails. */
  fileFailed(fileId: string, code: string, now: Date): OutboxMessage[] {
    if (!this.awaitsFiles()) {
      return [];
    }
    const file = this.files.find((candidate) => candidate.id === fileId);
    if (file) {
      file.status = 'failed';
    }
    return this.fail(code, now);
  }

  /**
   * `pending` → `inProgress`. Spec 9.4: a v2 order that had not started by the retirement never starts; it
   * fails with WATERMARK_V2_API_SUNSET instead. Types that start at once call this right after creation.
   */
  startProcessing(now: Date): OutboxMessage[] {
    if (this.startedBeforeFiles()) {
      // Started at once (`startBeforeFiles`): the files are in now, the jobs go out (no second status event).
      this.outputs.forEach((output) => (output.status = 'queued'));
      return [];
    }
    if (this.state.status !== 'pending') {
      return [];
    }
    if (this.state.apiVersion === 'v2' && isV2Retired(now)) {
      return this.fail(OrderFailureCode.WATERMARK_V2_API_SUNSET, now);
    }
    this.state.status = 'inProgress';
    // A pending order delayed by a parked file event (`messageParked`) is moving again.
    this.state.processingDelayed = false;
    this.touch(now);
    this.outputs.forEach((output) => (output.status = 'queued'));
    return [this.statusChanged()];
  }

  /**
   * Spec 3.1 "processing starts at once" (anti-AI with URLs): `pending` → `inProgress` at creation while the
   * service still fetches the files; once all are in, `startProcessing` sends the jobs. A file that cannot
   * be fetched fails the order as for a pending one.
   */
  startBeforeFiles(now: Date): OutboxMessage[] {
    if (this.state.status !== 'pending') {
      return [];
    }
    this.state.status = 'inProgress';
    this.touch(now);
    return [this.statusChanged()];
  }

  /**
   * A worker picked up an output. Progress of the order as well (`progressed`): the stuck-order sweep
   * (`processingTimedOut`) must not fail an order whose outputs are still moving.
   */
  outputStarted(fileId: string, now: Date): OutboxMessage[] {
    const output = this.output(fileId);
    if (this.isProcessing() && output?.status === 'queued') {
      output.status = 'processing';
      this.progressed(now);
    }
    return [];
  }

  /** Test keys: every output counts as done without a file (the sample files are handed out instead). */
  outputsSimulated(): void {
    if (this.isProcessing()) {
      this.outputs.forEach((output) => (output.status = 'completed'));
    }
  }

  /**
   * An output's file is written; the order type decides what happens once all are (single file or ZIP). Progress
   * of the order (`progressed`): an order of many outputs, or one behind a long queue of jobs, keeps completing them
   * one at a time, each hours after its start perhaps, and must not be swept as stuck meanwhile. A repeated
   * result (the output already completed) is no progress.
   */
  outputCompleted(fileId: string, objectKey: string, now: Date, packageKey?: string): boolean {
    const output = this.output(fileId);
    if (!this.isProcessing() || !output || output.status === 'completed') {
      return false;
    }
    output.status = 'completed';
    output.objectKey = objectKey;
    this.progressed(now);
    // The job of this output found every other output stored and made the order's ZIP (issue 32): completion
    // needs no package job. Downloads read the key only once the order is complete.
    if (packageKey) {
      this.state.packageKey = packageKey;
    }
    return true;
  }

  /** An output failed for good: the whole order fails with that public code. */
  outputFailed(fileId: string, code: string, now: Date): OutboxMessage[] {
    if (!this.isProcessing()) {
      return [];
    }
    const output = this.output(fileId);
    if (output) {
      output.status = 'failed';
      output.failureCode = code;
    }
    return this.fail(code, now);
  }

  /** Automatic retries exhausted: still `inProgress`, `processingDelayed` becomes true. */
  processingDelayed(now: Date): OutboxMessage[] {
    if (this.isProcessing() && !this.state.processingDelayed) {
      this.state.processingDelayed = true;
      this.touch(now);
    }
    return [];
  }

  /**
   * A message about this order used up its attempts in the orders service itself (a file or result event was
   * parked): the order waits for an operator's replay, visible as `processingDelayed`, whether it was still
   * waiting for its files or processing. Cleared when it starts, fails or expires.
   */
  messageParked(now: Date): OutboxMessage[] {
    if (!this.isFinal() && !this.state.processingDelayed) {
      this.state.processingDelayed = true;
      this.touch(now);
    }
    return [];
  }

  /**
   * The type adds to its creation options while the order still waits for its files (AI detection: the
   * client's confirmation of spec 4.15 that came before the last image).
   */
  amendOptions(update: (current: OrderOptions | null) => OrderOptions, now: Date): void {
    if (this.state.status === 'pending') {
      this.state.options = update(this.state.options);
      this.touch(now);
    }
  }

  /**
   * The type's own result (e.g. one image's analysis), while processing; `update` gets the current one. A
   * result that delivers nothing the client pays for (`refundReason`; spec 3.1: extract's unsupported and
   * error results) still completes the order but gives its credits back.
   */
  recordTypeResult(update: (current: OrderOptions | null) => OrderOptions, now: Date, refundReason?: string): void {
    if (!this.isProcessing()) {
      return;
    }
    this.state.typeResult = update(this.state.typeResult);
    if (refundReason !== undefined) {
      this.restoreCredits(refundReason);
    }
    this.touch(now);
  }

  /** `inProgress` → `complete`; `packageKey` is what `download` hands out (single output or ZIP). */
  complete(now: Date, completion: OrderCompletion, packageKey?: string | null): OutboxMessage[] {
    if (!this.isProcessing()) {
      return [];
    }
    this.state.status = 'complete';
    this.state.completedAt = now;
    // Done: no longer waiting for a recovery (a replayed job or event completed it).
    this.state.processingDelayed = false;
    if (packageKey !== undefined) {
      this.state.packageKey = packageKey;
    }
    this.touch(now);
    const completed = message(Events.orderCompleted, {
      ...this.common(now),
      completedAt: now.toISOString(),
      fileCount: this.files.length,
      download: completion.download ?? null,
      extract: completion.extract ?? null,
      ...(completion.webhookData ? { webhookData: completion.webhookData } : {}),
      ...(completion.links?.length ? { links: completion.links } : {}),
    });
    return [completed, this.statusChanged()];
  }

  /** Fails the order once: unfinished outputs fail too and the credits charged come back. */
  fail(code: string, now: Date): OutboxMessage[] {
    if (this.isFinal()) {
      return [];
    }
    this.state.status = 'failed';
    this.state.failureCode = code;
    this.state.failedAt = now;
    this.state.processingDelayed = false;
    this.touch(now);
    this.outputs.filter((output) => output.status !== 'completed' && output.status !== 'failed').forEach((output) => (output.status = 'failed'));
    this.restoreCredits('order failed');
    return [message(Events.orderFailed, { ...this.common(now), failedAt: now.toISOString(), errorCode: code }), this.statusChanged()];
  }

  /** Spec 3.1 "pending, 12 hours without all uploads": ORDER_TIMEOUT. */
  uploadWindowClosed(now: Date, windowMs: number): OutboxMessage[] {
    if (this.state.status !== 'pending' || this.state.createdAt.getTime() > now.getTime() - windowMs) {
      return [];
    }
    return this.fail(OrderFailureCode.ORDER_TIMEOUT, now);
  }

  /**
   * Stuck: `inProgress` without any progress for `maxAgeMs` (a job lost, parked or never answered). Progress is
   * any change `touch` records: a transition of the order, a file arriving, an output started or completed (at most
   * every `OUTPUT_PROGRESS_RECORD_MS`), a type's result. Fails with PROCESSING_TIMEOUT and its credits come back, so no order keeps a client's credits
   * for ever. `OrdersRepository.lockInProgressUnchangedSince` picks the candidates by the same `updatedAt`.
   */
  processingTimedOut(now: Date, maxAgeMs: number): OutboxMessage[] {
    if (!this.isProcessing() || this.state.updatedAt.getTime() > now.getTime() - maxAgeMs) {
      return [];
    }
    return this.fail(OrderFailureCode.PROCESSING_TIMEOUT, now);
  }

  /** Spec 9.4: from the retirement, a v2 order that has not started fails (credits restored). */
  v2Retired(now: Date): OutboxMessage[] {
    if (this.state.apiVersion !== 'v2' || this.state.status !== 'pending' || !isV2Retired(now)) {
      return [];
    }
    return this.fail(OrderFailureCode.WATERMARK_V2_API_SUNSET, now);
  }

  /**
   * Retention ended (any state): `expired`, result keys forgotten (the objects are deleted next; no row ever
   * points at a deleted object). Announced so reports refuse downloads from then on. An order that never
   * completed (still `pending` or `inProgress`) gives back what it was charged: it delivered nothing.
   */
  expire(now: Date): OutboxMessage[] {
    if (this.state.status === 'expired' || this.state.expiresAt > now) {
      return [];
    }
    if (this.state.status === 'pending' || this.state.status === 'inProgress') {
      this.restoreCredits('order expired before completing');
    }
    this.state.status = 'expired';
    this.state.packageKey = null;
    this.state.processingDelayed = false;
    this.outputs.forEach((output) => (output.objectKey = null));
    this.touch(now);
    return [this.statusChanged()];
  }

  // ---- internals ----------------------------------------------------------------------------------------

  private isProcessing(): boolean {
    return this.state.status === 'inProgress';
  }

  private output(fileId: string): OrderOutputState | undefined {
    return this.outputs.find((output) => output.fileId === fileId);
  }

  /** Gives back what the order was charged, once (extract refunds use the same reference). */
  private restoreCredits(reason: string): void {
    if (this.state.creditsCharged > 0 && !this.credits.some((movement) => movement.reference === `restore:${this.state.id}`)) {
      this.credits.push({ amount: this.state.creditsCharged, reference: `restore:${this.state.id}`, reason });
    }
  }

  /**
   * Records progress: `updatedAt` is the order's last change (spec: "Last update"), and what the stuck-order sweep
   * measures. Every transition that moves the order or one of its files calls it; outputs through `progressed`.
   */
  private touch(now: Date): void {
    this.state.updatedAt = now;
  }

  /**
   * An output's progress, recorded at most every `OUTPUT_PROGRESS_RECORD_MS`: each record is a write of the order's
   * row besides the output's, and an order of 1,000 outputs would otherwise write it 2,000 times. `updatedAt` (the
   * v2 "last update", the timeline's time, the sweep's age) then lags the outputs by less than that; the stuck-order
   * sweep's smallest bound (1 minute) is four times it, so a moving order is not taken for a stuck one.
   */
  private progressed(now: Date): void {
    if (now.getTime() - this.state.updatedAt.getTime() >= OUTPUT_PROGRESS_RECORD_MS) {
      this.touch(now);
    }
  }

  private common(now: Date) {
    return {
      orderId: this.state.id,
      accountId: this.state.accountId,
      mode: this.state.mode,
      orderType: this.state.type,
      apiVersion: this.state.apiVersion,
      orderName: orderNameOf(this.state),
      createdAt: this.state.createdAt.toISOString(),
      updatedAt: now.toISOString(),
    };
  }

  private statusChanged(): OutboxMessage {
    return message(Events.orderStatusChanged, {
      orderId: this.state.id,
      accountId: this.state.accountId,
      mode: this.state.mode,
      orderType: this.state.type,
      status: this.state.status,
      expiresAt: this.state.expiresAt.toISOString(),
      apiVersion: this.state.apiVersion,
    });
  }
}

/** `someType` → `some-type`: the type's part of a derived order name (no table of types to keep here). */
function kebabCase(type: OrderType): string {
  return type.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** The order name of events, reports and v2 details: the client's `orderName` (anti-AI), else derived from type and id. */
export function orderNameOf(order: Pick<OrderState, 'type' | 'id'> & { options?: OrderOptions | null }): string {
  const given = order.options?.orderName;
  return typeof given === 'string' && given.length > 0 ? given : `${kebabCase(order.type)}-${order.id}`;
}
