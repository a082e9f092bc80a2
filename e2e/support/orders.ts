import { WatermarkOrderView } from '@cp/contracts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ROOT } from '@cp/stack';
import { api, ApiResponse, eventually } from './e2e-stack';

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
  return eventually(() => getOrder(key, orderId), (order) => statuses.includes(order.status), timeoutMs);
}

export async function download(url: string): Promise<{ status: number; body: Buffer; disposition: string | null }> {
  const response = await fetch(url);
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()), disposition: response.headers.get('content-disposition') };
}
