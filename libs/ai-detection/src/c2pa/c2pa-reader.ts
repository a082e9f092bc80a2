import { BoundedWorker, isWorkerMachineFailure, residentLimitMb, WorkerFailure, WorkerFailureCode, WorkerLimits } from '@cp/bounded-worker';
import { join } from 'node:path';
import { ProvenanceStep } from '../evidence';
import { C2paTrustConfig, C2paTrustSettings, loadC2paTrust } from './c2pa-trust';

/**
 * Settings of the reader (c2pa-rs's "context" JSON) without any trust list: nothing is fetched from the network (a
 * file can name a remote manifest or an OCSP responder; following either would let an uploaded file make the
 * detector connect where its author chooses), and no signer is trusted. Reads use the trust lists of c2pa-trust.ts.
 */
export const C2PA_READER_SETTINGS = JSON.stringify({ verify: { ocsp_fetch: false, remote_manifest_fetch: false } });

export interface C2paReaderLimits {
  /** Budget of one read, in milliseconds. */
  deadlineMs: number;
  /** JavaScript heap of the reader process, in MiB (the WebAssembly memory is outside it). */
  maxOldGenerationSizeMb: number;
}

export const DEFAULT_C2PA_READER_LIMITS: C2paReaderLimits = { deadlineMs: 30_000, maxOldGenerationSizeMb: 256 };

/**
 * The limits in force, with the resident memory they imply (`residentLimitMb` of the heap): the reader process's
 * whole resident memory is watched and the process killed past it, a read failing as `memory`; the heap limit alone
 * does not bound the WebAssembly memory a manifest can make c2pa-rs grow.
 */
export interface C2paReaderLimitsInForce extends C2paReaderLimits {
  maxResidentMb: number;
}

/**
 * The reader ran out of time (past its CPU budget) or memory, or died of the file: the manifest could not be read (not
 * the order's failure). A read that failed for the machine (its deadline reached under the CPU budget, the reader killed
 * by the kernel) is not one of these: its WorkerFailure (STARVED, KILLED) is thrown on and the detection job retried.
 */
export class C2paReadFailed extends Error {
  constructor(
    readonly reason: 'deadline' | 'memory' | 'crashed',
    message: string,
  ) {
    super(message);
    this.name = 'C2paReadFailed';
  }
}

/**
 * The parts of c2pa's manifest store JSON the signal reads (the reader process keeps only these: the active
 * manifest's claim generator and actions, and the validation results, strings cut to 500 characters).
 */
export interface ManifestStore {
  active_manifest?: string;
  manifests?: Record<string, Manifest>;
  validation_status?: ValidationStatus[];
  validation_state?: string;
  chain?: ChainStep[];
  /** Manifests reachable from the active one that `chain` leaves out (past the reader's 32 manifests or depth 8). */
  chain_omitted?: number;
  /** Validation state against the frozen interim list, when the C2PA lists did not trust a valid manifest. */
  interim_state?: string;
}

export interface ValidationStatus {
  code?: string;
  explanation?: string;
}

export interface ManifestAssertion {
  label?: string;
  data?: { actions?: Array<{ action?: string; digitalSourceType?: string }> };
}

/** One manifest of the provenance chain (c2pa-worker.mjs `chainOf`). */
export type ChainStep = ProvenanceStep;

export interface Manifest {
  claim_generator?: string;
  claim_generator_info?: Array<{ name?: string; version?: string }>;
  assertions?: ManifestAssertion[];
}

/** What c2pa-rs said about the file: its manifest store, or its error (no manifest, a damaged one). */
export type C2paReadResult = { ok: true; store: ManifestStore } | { ok: false; error: { name: string; message: string } };

interface Reply {
  id: number;
  ok: boolean;
  store?: ManifestStore;
  error?: { name: string; message: string };
  retire?: boolean;
}

interface Request {
  mimeType: string;
  bytes: Uint8Array;
  settings: string;
}

let trust: C2paTrustSettings | null = null;

/** Loads the trust lists (the shipped snapshots unless configured); a list that cannot be read stops the start. */
export function configureC2paTrust(config: C2paTrustConfig = {}): C2paTrustSettings {
  trust = loadC2paTrust(config);
  return trust;
}

function currentTrust(): C2paTrustSettings {
  trust ??= loadC2paTrust();
  return trust;
}

// A plain ES module loaded by path: the same file runs under ts-node, Jest and the build (copied to dist/).
const WORKER_FILE = join(__dirname, 'c2pa-worker.mjs');

/**
 * c2pa-rs off the main thread: one long-lived child process (the WebAssembly module compiled once in it), one read
 * at a time, each under a deadline and a heap limit; replaced after a crash, an overrun or a WebAssembly trap.
 * A process rather than a thread: a manifest can make the reader ask for one string far past the heap limit,
 * which V8 answers by aborting the whole process the thread lives in. The image is therefore copied to it once
 * (through the IPC pipe), not moved.
 */
const reader = new BoundedWorker<Request, Reply>({
  name: 'c2pa-reader',
  file: WORKER_FILE,
  isolation: 'process',
  limits: { ...DEFAULT_C2PA_READER_LIMITS, maxResidentMb: residentLimitMb(DEFAULT_C2PA_READER_LIMITS.maxOldGenerationSizeMb) },
  // long-lived: compiling the 9 MB WebAssembly module costs more than keeping an idle process
  idleMs: 10 * 60_000,
});

/** `cpuShare`: the share of the deadline a read may spend on the CPU (WORKER_CPU_SHARE; tests set their own). */
export function configureC2paReader(limits: Partial<C2paReaderLimits & Pick<WorkerLimits, 'cpuShare'>>): void {
  const resident = limits.maxOldGenerationSizeMb === undefined ? {} : { maxResidentMb: residentLimitMb(limits.maxOldGenerationSizeMb) };
  reader.configure({ ...limits, ...resident } satisfies Partial<WorkerLimits>);
}

export function c2paReaderLimits(): C2paReaderLimitsInForce {
  const { deadlineMs, maxOldGenerationSizeMb, maxResidentMb } = reader.currentLimits;
  return { deadlineMs, maxOldGenerationSizeMb, maxResidentMb: maxResidentMb ?? residentLimitMb(maxOldGenerationSizeMb) };
}

/** Stops the reader process (it also stops by itself after ten idle minutes and never keeps the process alive). */
export async function closeC2paReader(): Promise<void> {
  await reader.close();
}

const REASONS: Record<Exclude<WorkerFailureCode, WorkerFailureCode.STARVED | WorkerFailureCode.KILLED>, C2paReadFailed['reason']> = {
  [WorkerFailureCode.DEADLINE]: 'deadline',
  [WorkerFailureCode.OUT_OF_MEMORY]: 'memory',
  [WorkerFailureCode.CRASHED]: 'crashed',
  [WorkerFailureCode.ABORTED]: 'crashed',
};

async function call(bytes: Uint8Array, mimeType: string, settings: string): Promise<Reply> {
  try {
    return await reader.call({ mimeType, bytes, settings });
  } catch (error) {
    // The machine's failure says nothing of the file: thrown on, so the job reads it again (redelivered with backoff).
    if (isWorkerMachineFailure(error)) throw error;
    if (error instanceof WorkerFailure) throw new C2paReadFailed(REASONS[error.code as keyof typeof REASONS], error.message);
    throw error;
  }
}

/**
 * Reads the manifest store of an image in the reader process, validated against the configured trust lists (or
 * the given settings); a valid manifest they do not trust is read once more against the frozen interim list, whose
 * answer is reported apart (`interim_state`). Throws C2paReadFailed when the reader failed.
 */
export async function readManifestStore(
  bytes: Uint8Array,
  mimeType: string,
  settings: { settings: string; interimSettings: string | null } = { settings: currentTrust().official, interimSettings: currentTrust().interim },
): Promise<C2paReadResult> {
  const reply = await call(bytes, mimeType, settings.settings);
  if (!reply.ok) return { ok: false, error: reply.error ?? { name: 'Error', message: 'the manifest could not be read' } };
  const store = reply.store ?? {};
  if (settings.interimSettings && store.validation_state === 'Valid') {
    // Informative only: when this second read fails, the result simply has no interim answer.
    const interim = await call(bytes, mimeType, settings.interimSettings).catch((error: unknown) => {
      if (error instanceof C2paReadFailed) return null;
      throw error;
    });
    if (interim?.ok && interim.store?.validation_state) store.interim_state = interim.store.validation_state;
  }
  return { ok: true, store };
}
