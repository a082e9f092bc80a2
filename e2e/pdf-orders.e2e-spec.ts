// PDF outputs in embed orders and PDF originals in extract orders, through all services (issue 6).
import { WatermarkOrderView } from '@cp/contracts';
import { encryptedPdfFixture } from '@cp/testing';
import { serialOfPayload } from '@cp/watermark';
import { closePdfRenderer, extractPdf, pdfPageTexts, renderPdfPages } from '@cp/watermark-pdf';
import { inflationBombPdf } from '@cp/watermark-pdf/testing';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { api, createAccount, eventually, layout, openSchema, TestAccount } from './support/e2e-stack';
import { corpusFile, createEmbed, download, embedBody, uploadFiles, waitForOrder } from './support/orders';
import { readZip } from '@cp/testing';

const KEY = { secret: layout.extraEnv?.WATERMARK_SECRET ?? '', version: 'v3' as const };

describe('PDF watermark orders', () => {
  let gateway: DataSource;
  let orders: DataSource;
  let watermark: DataSource;
  let account: TestAccount;
  const photo = corpusFile('photos/coffee.png');
  const document = corpusFile('pdfs/text-1-page.pdf');
  let markedPdf: Buffer;
  let pdfIssuance: string;
  let inflationBomb: Buffer;

  const balance = async (accountId: string): Promise<number> =>
    (await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [accountId]))[0]?.balance ?? -1;

  async function extract(inspected: Buffer, inspectedName: string): Promise<WatermarkOrderView> {
    const response = await api<{ data: WatermarkOrderView }>('/api/v3/orders/wtr-extract', {
      key: account.liveKey,
      method: 'POST',
      body: { idempotencyKey: randomUUID(), file: { fileName: inspectedName, originalFile: { fileName: 'contract.pdf' } } },
    });
    expect(response.status).toBe(200);
    await uploadFiles(response.body.data, [document, inspected]);
    return waitForOrder(account.liveKey, response.body.data.orderId, ['complete', 'failed'], 180_000);
  }

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    orders = await openSchema('orders');
    watermark = await openSchema('watermark');
    account = await createAccount(gateway, 'enterprise', 100);
    // 200 MiB of zeros in a content stream of about 200 KiB (issue 29)
    inflationBomb = await inflationBombPdf(200 * 1024 * 1024);
    await eventually(() => balance(account.accountId), (value) => value === 100);
  });

  afterAll(async () => {
    await closePdfRenderer();
    await Promise.all([gateway.destroy(), orders.destroy(), watermark.destroy()]);
  });

  it('a mixed image + PDF embed order completes, with a PDF output that keeps its text and carries the mark', async () => {
    const created = (await createEmbed(account.liveKey, embedBody([
      { fileName: 'coffee.png', texts: ['to: press desk'] },
      { fileName: 'contract.pdf', texts: ['to: legal team'] },
    ]))).body.data;
    expect(created.outputs.map((output) => output.mediaKind)).toEqual(['image', 'pdf']);
    await uploadFiles(created, [photo, document]);
    const finished = await waitForOrder(account.liveKey, created.orderId, ['complete', 'failed'], 180_000);
    expect(finished.status).toBe('complete');

    const link = await api<{ data: { downloadUrl: string } }>(`/api/v3/orders/${created.orderId}/download`, { key: account.liveKey });
    const entries = await readZip((await download(link.body.data.downloadUrl)).body);
    const pdfOutput = finished.outputs[1];
    const pdfName = `contract-watermarked-${pdfOutput.fileId}.pdf`;
    expect([...entries.keys()].sort()).toEqual([`coffee-watermarked-${finished.outputs[0].fileId}.png`, pdfName].sort());
    markedPdf = entries.get(pdfName) ?? Buffer.alloc(0);
    expect(markedPdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(await pdfPageTexts(markedPdf)).toEqual(await pdfPageTexts(document));

    const rows = await watermark.query<Array<{ id: string }>>('SELECT id FROM issuance WHERE output_file_id = $1', [pdfOutput.fileId]);
    pdfIssuance = rows[0].id;
    const found = await extractPdf(markedPdf, document, { key: KEY });
    // issue 36: the payload embedded is the issuance id scrambled (serialOfPayload undoes it)
    expect({ status: found.status, serial: found.payload === undefined ? undefined : serialOfPayload(found.payload).toString() }).toEqual({ status: 'detected', serial: pdfIssuance });
  });

  it('an extract order with a PDF original and a PNG capture of the page is detected, without a report', async () => {
    const [page] = await renderPdfPages(markedPdf, [0], 96);
    const capture = await sharp(page.rgb, { raw: { width: page.width, height: page.height, channels: 3 } }).png().toBuffer();
    const finished = await extract(capture, 'screenshot.png');
    expect(finished.status).toBe('complete');
    expect(finished.result).toEqual({ detectionStatus: 'detected', reportSupported: false, watermarkText: 'to: legal team' });
  });

  it('an extract order with the marked PDF itself is detected and reportable', async () => {
    const finished = await extract(markedPdf, 'leaked.pdf');
    expect(finished.result).toEqual({ detectionStatus: 'detected', reportSupported: true, watermarkText: 'to: legal team' });
  });

  it('the unmarked original PDF is not_detected', async () => {
    const finished = await extract(document, 'same.pdf');
    expect(finished.result?.detectionStatus).toBe('not_detected');
  });

  it.each([
    ['an encrypted PDF', 'WATERMARK_PDF_ENCRYPTED', () => encryptedPdfFixture()],
    ['a damaged PDF', 'WATERMARK_FILE_INVALID', () => document.subarray(0, 4000)],
    ['a PDF whose streams inflate a thousandfold', 'WATERMARK_FILE_INVALID', () => inflationBomb],
  ])('%s fails the embed order with %s and restores its credit', async (_name, code, content) => {
    const own = await createAccount(gateway, 'pro', 3);
    await eventually(() => balance(own.accountId), (value) => value === 3);
    const created = (await createEmbed(own.liveKey, embedBody([{ fileName: 'locked.pdf', texts: ['x'] }]))).body.data;
    await uploadFiles(created, [content()]);
    const failed = await waitForOrder(own.liveKey, created.orderId);
    expect(failed.status).toBe('failed');
    const rows = await orders.query<Array<{ failure_code: string }>>('SELECT failure_code FROM "order" WHERE id = $1', [created.orderId]);
    expect(rows[0].failure_code).toBe(code);
    await eventually(() => balance(own.accountId), (value) => value === 3);
  });
});
