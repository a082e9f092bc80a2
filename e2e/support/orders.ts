import { OrderTimelineView, Streams, WatermarkOrderView } from '@cp/contracts';
import { natsServers } from '@cp/messaging';
import { connect, NatsConnection } from 'nats';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ROOT } from '@cp/stack';
import { api, ApiResponse, eventually, layout } from './e2e-stack';

/** Files the e2e tests send, inside the repository (e2e/fixtures/README.md: sources, licences, generated variants). */
export const CORPUS = path.resolve(ROOT, 'e2e', 'fixtures');

export function corpusFile(relative: string): Buffer {
  return readFileSync(path.join(CORPUS, relative));
}

export interface EmbedFileSpec {
  fileName: string;
  texts: string[];
  originalFileUrl?: string;
}

export function embedBody(files: EmbedFileSpec[], idempotencyKey: string = randomUUID()): Record<string, unknown> {
  return {
    idempotencyKey,
    files: files.map((file) => ({
      fileName: file.fileName,
      ...(file.originalFileUrl ? { originalFileUrl: file.originalFileUrl } : {}),
      watermarks: file.texts.map((text) => ({ text })),
    })),
  };
}

export async function createEmbed(key: string, body: unknown): Promise<ApiResponse<{ data: WatermarkOrderView; code?: string }>> {
  return api<{ data: WatermarkOrderView; code?: string }>('/api/v3/orders/wtr-embed', { key, method: 'POST', body });
}

export async function getOrder(key: string, orderId: string): Promise<WatermarkOrderView> {
  const response = await api<{ data: WatermarkOrderView }>(`/api/v3/orders/${orderId}`, { key });
  if (response.status !== 200) {
    throw new Error(`GET order ${orderId}: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body.data;
}

/** PUT each file's bytes to its upload URL (no Authorization header, as a client would). */
export async function uploadFiles(order: WatermarkOrderView, contents: Buffer[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const [index, file] of order.files.entries()) {
    if (!file.uploadUrl) {
      throw new Error(`file ${file.fileId} has no upload URL`);
    }
    const response = await fetch(file.uploadUrl, { method: 'PUT', body: new Uint8Array(contents[index]) });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

export async function waitForOrder(key: string, orderId: string, statuses: string[] = ['complete', 'failed'], timeoutMs = 90_000): Promise<WatermarkOrderView> {
  try {
    return await eventually(() => getOrder(key, orderId), (order) => statuses.includes(order.status), timeoutMs);
  } catch (error) {
    // An order that never arrives says where it stopped: its timeline (every service's steps and attempts) goes
    // into the failure, so a run that fails once can be explained from its output alone.
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\norder ${orderId} timeline:\n${await timelineText(orderId)}\nJOBS consumers:\n${await jobConsumersText()}`,
    );
  }
}

/** The order's timeline from the orders service's internal route, a step a line (or why it could not be read). */
export async function timelineText(orderId: string): Promise<string> {
  try {
    const response = await fetch(`http://127.0.0.1:${layout.ports.orders[0]}/internal/orders/${orderId}/timeline`);
    const view = (await response.json()) as OrderTimelineView;
    if (response.status !== 200) {
      return `timeline answered ${response.status}: ${JSON.stringify(view)}`;
    }
    const lines = view.steps.map((step) => [step.at, step.service, step.step, step.durationMs === undefined ? '' : `${step.durationMs} ms`, step.detail ?? ''].join('\t'));
    return [...lines, `unavailable: ${view.unavailable.join(', ') || 'none'}`].join('\n');
  } catch (error) {
    return `timeline not read: ${error instanceof Error ? error.message : String(error)}`;
  }
}

export async function download(url: string): Promise<{ status: number; body: Buffer; disposition: string | null }> {
  const response = await fetch(url);
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()), disposition: response.headers.get('content-disposition') };
}

/** The JOBS stream's consumers as the broker sees them (pending, held, waiting pulls, leader): a delivery that stalled shows here. */
export async function jobConsumersText(): Promise<string> {
  let connection: NatsConnection | undefined;
  try {
    connection = await connect({ servers: natsServers(layout.natsUrl), timeout: 5000 });
    const manager = await connection.jetstreamManager();
    const lines: string[] = [];
    for await (const info of manager.consumers.list(Streams.jobs.name)) {
      lines.push(
        `${info.name}: pending ${info.num_pending}, ack pending ${info.num_ack_pending}, waiting pulls ${info.num_waiting}, ` +
          `delivered ${info.delivered.stream_seq}, ack floor ${info.ack_floor.stream_seq}, leader ${info.cluster?.leader ?? '-'}`,
      );
    }
    return lines.join('\n');
  } catch (error) {
    return `not read: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await connection?.close();
  }
}
