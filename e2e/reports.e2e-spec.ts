// PDF watermark-detection reports over HTTP against all services (issue 8).
import { EventSubjects, OrderStatusChangedEvent, ReportView, WatermarkOrderView } from '@cp/contracts';
import { createHash, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { api, ApiResponse, createAccount, eventually, openSchema, setClockOffset, stack, TestAccount } from './support/e2e-stack';
import { corpusFile, createEmbed, download, embedBody, getOrder, uploadFiles, waitForOrder } from './support/orders';
import { pdfText, SCRIPTS } from './support/pdf-text';
import { readZip } from '@cp/testing';

type ReportResponse = ApiResponse<{ data: ReportView; code?: string }>;

const STATUS_WORDS: Record<string, { detected: string; script: RegExp[] }> = {
  'ko-KR': { detected: '검출됨', script: [SCRIPTS.hangul] },
  'en-US': { detected: 'Detected', script: [] },
  'ja-JP': { detected: '検出', script: [SCRIPTS.kana, SCRIPTS.kanji] },
};

function extractBody(inspected: string, original: string): Record<string, unknown> {
  return { idempotencyKey: randomUUID(), file: { fileName: inspected, originalFile: { fileName: original } } };
}

function requestReport(key: string, orderId: string, locale: unknown): Promise<ReportResponse> {
  return api<{ data: ReportView; code?: string }>(`/api/v3/orders/${orderId}/reports`, { key, method: 'POST', body: { locale } });
}

function getReport(key: string, orderId: string, locale: string): Promise<ReportResponse> {
  return api<{ data: ReportView; code?: string }>(`/api/v3/orders/${orderId}/reports/${locale}`, { key });
}

async function waitForReport(key: string, orderId: string, locale: string, statuses = ['completed', 'failed'], timeoutMs = 60_000): Promise<ReportView> {
  const response = await eventually(
    () => getReport(key, orderId, locale),
    (answer) => answer.status === 200 && statuses.includes(answer.body.data.status),
    timeoutMs,
  );
  return response.body.data;
}

describe('PDF watermark-detection reports', () => {
  let gateway: DataSource;
  let reports: DataSource;
  let orders: DataSource;
  let owner: TestAccount;
  let marked: Buffer;
  const original = corpusFile('photos/astronaut.png');

  /** A live extract order of the marked image, finished (detected). */
  async function liveExtract(inspectedName: string): Promise<WatermarkOrderView> {
    const created = (await api<{ data: WatermarkOrderView }>('/api/v3/orders/wtr-extract', { key: owner.liveKey, method: 'POST', body: extractBody(inspectedName, 'astronaut.png') })).body.data;
    expect(await uploadFiles(created, [original, marked])).toEqual([200, 200]);
    return waitForOrder(owner.liveKey, created.orderId, ['complete', 'failed'], 120_000);
  }

  /** A test-key extract order with a simulated result chosen by the file name. */
  async function testExtract(inspectedName: string): Promise<WatermarkOrderView> {
    const created = (await api<{ data: WatermarkOrderView }>('/api/v3/orders/wtr-extract', { key: owner.testKey, method: 'POST', body: extractBody(inspectedName, 'a.png') })).body.data;
    await uploadFiles(created, [Buffer.from('original bytes'), Buffer.from('inspected bytes')]);
    return waitForOrder(owner.testKey, created.orderId);
  }

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    reports = await openSchema('reports');
    orders = await openSchema('orders');
    owner = await createAccount(gateway, 'enterprise', 100);
    const embed = await eventually(
      () => createEmbed(owner.liveKey, embedBody([{ fileName: 'astronaut.png', texts: ['leak: 홍길동'] }])),
      (response) => response.status === 200,
    );
    await uploadFiles(embed.body.data, [original]);
    expect((await waitForOrder(owner.liveKey, embed.body.data.orderId)).status).toBe('complete');
    const link = await api<{ data: { downloadUrl: string } }>(`/api/v3/orders/${embed.body.data.orderId}/download`, { key: owner.liveKey });
    marked = (await download(link.body.data.downloadUrl)).body;
    if (marked.subarray(0, 2).toString('latin1') === 'PK') {
      marked = [...(await readZip(marked)).values()][0];
    }
  });

  afterAll(async () => {
    setClockOffset(0);
    await Promise.all([gateway.destroy(), reports.destroy(), orders.destroy()]);
  });

  describe('a detected live extract order', () => {
    let order: WatermarkOrderView;

    beforeAll(async () => {
      order = await liveExtract('leaked-copy.png');
      expect(order.result).toEqual({ detectionStatus: 'detected', reportSupported: true, watermarkText: 'leak: 홍길동' });
    });

    it.each(['ko-KR', 'en-US', 'ja-JP'])('%s: 202 queued, then completed, and the PDF says so in that language', async (locale) => {
      const requested = await requestReport(owner.liveKey, order.orderId, locale);
      expect(requested.status).toBe(202);
      expect(requested.body.data).toMatchObject({ orderId: order.orderId, reportType: 'watermarkDetection', locale, status: 'queued', download: null, failure: null });

      const done = await waitForReport(owner.liveKey, order.orderId, locale);
      expect(done).toMatchObject({ status: 'completed', failure: null, download: { expiresInSeconds: 300 } });
      const file = await download(done.download?.url ?? '');
      expect(file.status).toBe(200);
      expect(file.disposition).toBe(`attachment; filename="watermark-extract-${order.orderId}-report-${locale}.pdf"`);
      expect(file.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      // the hash the service keeps (the report says so) is the downloaded file's: a filed copy can be checked against it
      expect(done.download?.sha256).toBe(createHash('sha256').update(file.body).digest('hex'));

      const text = await pdfText(file.body);
      expect(text.text).toContain(order.orderId);
      expect(text.text).toContain(STATUS_WORDS[locale].detected);
      expect(text.text).toContain('leak: 홍길동');
      for (const script of STATUS_WORDS[locale].script) {
        expect(text.text).toMatch(script);
      }
      // The verification section carries the SHA-256 of both files as stored.
      expect(text.text).toContain(createHash('sha256').update(original).digest('hex'));
      expect(text.text).toContain(createHash('sha256').update(marked).digest('hex'));
    });

    it('asking again returns the current report (200), each GET presigns a new URL', async () => {
      const again = await requestReport(owner.liveKey, order.orderId, 'en-US');
      expect(again.status).toBe(200);
      expect(again.body.data.status).toBe('completed');
      const first = await getReport(owner.liveKey, order.orderId, 'en-US');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const second = await getReport(owner.liveKey, order.orderId, 'en-US');
      expect(first.body.data.download?.url).not.toBe(second.body.data.download?.url);
    });

    it("the order view's reports[] lists each locale with its status", async () => {
      const view = await eventually(
        () => getOrder(owner.liveKey, order.orderId),
        (current) => current.reports.length === 3 && current.reports.every((entry) => entry.status === 'completed'),
      );
      expect([...view.reports].sort((a, b) => a.locale.localeCompare(b.locale))).toEqual([
        { locale: 'en-US', status: 'completed' },
        { locale: 'ja-JP', status: 'completed' },
        { locale: 'ko-KR', status: 'completed' },
      ]);
    });

    it('the PDF object lies under the order prefix in the reports bucket', async () => {
      const rows = await reports.query<Array<{ object_key: string; object_bucket: string }>>('SELECT object_key, object_bucket FROM report WHERE order_id = $1', [order.orderId]);
      expect(rows).toHaveLength(3);
      for (const row of rows) {
        expect(row.object_bucket).toBe('cp-reports');
        expect(row.object_key.startsWith(`${owner.accountId}/${order.orderId}/reports/`)).toBe(true);
      }
    });
  });

  it('an inspected file replaced through its upload URL after the examination: the report certifies the bytes examined', async () => {
    const created = (await api<{ data: WatermarkOrderView }>('/api/v3/orders/wtr-extract', { key: owner.liveKey, method: 'POST', body: extractBody('replaced-later.png', 'astronaut.png') })).body.data;
    expect(await uploadFiles(created, [original, marked])).toEqual([200, 200]);
    const order = await waitForOrder(owner.liveKey, created.orderId, ['complete', 'failed'], 120_000);
    expect(order.result?.detectionStatus).toBe('detected');
    // the upload URL is still within its lifetime: storage takes the second PUT
    const other = corpusFile('photos/coffee.png');
    const replaced = await fetch(created.files[1].uploadUrl ?? '', { method: 'PUT', body: new Uint8Array(other) });
    await replaced.arrayBuffer();
    expect(replaced.status).toBe(200);

    expect((await requestReport(owner.liveKey, order.orderId, 'en-US')).status).toBe(202);
    const done = await waitForReport(owner.liveKey, order.orderId, 'en-US');
    expect(done.status).toBe('completed');
    const text = (await pdfText((await download(done.download?.url ?? '')).body)).text;
    const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
    expect(text).toContain(sha256(marked));
    expect(text).not.toContain(sha256(other));
    expect(text.replace(/\s+/g, ' ')).toContain('The stored file was replaced after the examination');
    expect((await getOrder(owner.liveKey, order.orderId)).status).toBe('complete');
  });

  describe('errors', () => {
    it('a locale never requested → 404 REPORT_NOT_FOUND', async () => {
      const order = await testExtract('leak-detected.jpg');
      const response = await getReport(owner.testKey, order.orderId, 'ja-JP');
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ code: 'REPORT_NOT_FOUND' });
    });

    it('a result that is not reportable → 400 VALIDATION_FAILED, and no report is created', async () => {
      const order = await testExtract('odd-unsupported.tif');
      expect(order.result?.reportSupported).toBe(false);
      const response = await requestReport(owner.testKey, order.orderId, 'en-US');
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ code: 'VALIDATION_FAILED' });
      expect((await getReport(owner.testKey, order.orderId, 'en-US')).status).toBe(404);
    });

    it('an order that is not complete → 400 VALIDATION_FAILED', async () => {
      const created = (await api<{ data: WatermarkOrderView }>('/api/v3/orders/wtr-extract', { key: owner.testKey, method: 'POST', body: extractBody('x-detected.png', 'a.png') })).body.data;
      const response = await requestReport(owner.testKey, created.orderId, 'ko-KR');
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ code: 'VALIDATION_FAILED' });
    });

    it.each([
      ['an invalid locale in the body', '123', { locale: 'de-DE' }],
      ['no locale', '123', {}],
      ['an order id that is not digits', 'abc', { locale: 'en-US' }],
      ['an order id of 21 digits', '1'.repeat(21), { locale: 'en-US' }],
    ])('POST with %s → 400 VALIDATION_FAILED', async (_name, orderId, body) => {
      const response = await api(`/api/v3/orders/${orderId}/reports`, { key: owner.testKey, method: 'POST', body });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ code: 'VALIDATION_FAILED' });
    });

    it('GET with an invalid locale or order id → 400 VALIDATION_FAILED', async () => {
      for (const path of ['/api/v3/orders/123/reports/fr-FR', '/api/v3/orders/12x/reports/en-US']) {
        const response = await api(path, { key: owner.testKey });
        expect({ path, status: response.status, body: response.body }).toEqual({ path, status: 400, body: { code: 'VALIDATION_FAILED' } });
      }
    });

    it("another account's order → 404 RESOURCE_NOT_FOUND", async () => {
      const order = await testExtract('leak-detected.jpg');
      const stranger = await createAccount(gateway, 'free', 0);
      const response = await requestReport(stranger.testKey, order.orderId, 'en-US');
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ code: 'RESOURCE_NOT_FOUND' });
    });
  });

  it('a test order gets a report marked as a test, with the files shown as not retained', async () => {
    const order = await testExtract('leak-detected.jpg');
    expect((await requestReport(owner.testKey, order.orderId, 'en-US')).status).toBe(202);
    const done = await waitForReport(owner.testKey, order.orderId, 'en-US');
    expect(done.status).toBe('completed');
    const text = await pdfText((await download(done.download?.url ?? '')).body);
    expect(text.text).toContain('TEST ORDER');
    expect(text.text).toContain('not retained');
  });

  it('forced generation failures: failed and retryable, a new attempt per request, not retryable after 3', async () => {
    const order = await testExtract('report-fault-detected.png');
    const retryable: boolean[] = [];
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const requested = await requestReport(owner.testKey, order.orderId, 'ja-JP');
      expect(requested.status).toBe(202);
      expect(requested.body.data.status).toBe('queued');
      const failed = await waitForReport(owner.testKey, order.orderId, 'ja-JP');
      expect(failed).toMatchObject({ status: 'failed', download: null, failure: { code: 'REPORT_GENERATION_FAILED' } });
      retryable.push(failed.failure?.retryable ?? true);
    }
    expect(retryable).toEqual([true, true, false]);
    // Not retryable: asking again starts nothing and returns the failed report.
    const again = await requestReport(owner.testKey, order.orderId, 'ja-JP');
    expect(again.status).toBe(200);
    expect(again.body.data.failure).toEqual({ code: 'REPORT_GENERATION_FAILED', retryable: false });
    const view = await eventually(
      () => getOrder(owner.testKey, order.orderId),
      (current) => current.reports.some((entry) => entry.locale === 'ja-JP' && entry.status === 'failed'),
    );
    expect(view.reports).toEqual([{ locale: 'ja-JP', status: 'failed' }]);
  });

  it('SIGKILL of the reports service mid-generation still ends completed', async () => {
    const order = await liveExtract('report-slow-copy.png');
    expect(order.result?.detectionStatus).toBe('detected');
    expect((await requestReport(owner.liveKey, order.orderId, 'ko-KR')).status).toBe(202);
    await waitForReport(owner.liveKey, order.orderId, 'ko-KR', ['processing']);
    const processes = stack();
    await processes.stop('reports', 'SIGKILL');
    await processes.startService('reports');
    const done = await waitForReport(owner.liveKey, order.orderId, 'ko-KR', ['completed', 'failed'], 90_000);
    expect(done.status).toBe('completed');
    const text = await pdfText((await download(done.download?.url ?? '')).body);
    expect(text.text).toContain(order.orderId);
    expect(text.text).toMatch(SCRIPTS.hangul);
  });

  describe('after retention', () => {
    async function completedTestReport(locale: string): Promise<{ order: WatermarkOrderView; report: ReportView }> {
      const order = await testExtract('leak-detected.jpg');
      expect((await requestReport(owner.testKey, order.orderId, locale)).status).toBe(202);
      return { order, report: await waitForReport(owner.testKey, order.orderId, locale) };
    }

    it('the expired event drops the object keys and deletes the PDFs; GET and POST answer 400 ORDER_EXPIRED', async () => {
      const { order, report } = await completedTestReport('en-US');
      expect(report.status).toBe('completed');
      expect((await download(report.download?.url ?? '')).status).toBe(200);
      // What the orders service publishes when retention ends (written to its outbox, relayed by it).
      const event: OrderStatusChangedEvent = { orderId: order.orderId, accountId: owner.accountId, mode: 'test', orderType: 'watermarkExtract', status: 'expired' };
      const eventId = randomUUID();
      await orders.query('INSERT INTO outbox_event (id, subject, envelope) VALUES ($1, $2, $3)', [
        eventId,
        EventSubjects.orderStatusChanged,
        { eventId, subject: EventSubjects.orderStatusChanged, occurredAt: new Date().toISOString(), data: event },
      ]);
      const rows = await eventually(
        () => reports.query<Array<{ order_expired: boolean; object_key: string | null }>>('SELECT order_expired, object_key FROM report WHERE order_id = $1', [order.orderId]),
        (current) => current.length === 1 && current[0].order_expired,
      );
      expect(rows[0].object_key).toBeNull();
      // The PDF is deleted right after that commit.
      expect(await eventually(async () => (await download(report.download?.url ?? '')).status, (status) => status === 404)).toBe(404);
      for (const response of [await getReport(owner.testKey, order.orderId, 'en-US'), await getReport(owner.testKey, order.orderId, 'ko-KR'), await requestReport(owner.testKey, order.orderId, 'en-US')]) {
        expect({ status: response.status, body: response.body }).toEqual({ status: 400, body: { code: 'ORDER_EXPIRED' } });
      }
    });

    it('past expiresAt by the clock: 400 ORDER_EXPIRED whatever the report status, also for POST', async () => {
      const { order } = await completedTestReport('ko-KR');
      const failing = await testExtract('report-fault-detected.png');
      await requestReport(owner.testKey, failing.orderId, 'ko-KR');
      expect((await waitForReport(owner.testKey, failing.orderId, 'ko-KR')).status).toBe('failed');
      setClockOffset(31 * 24 * 3600_000);
      try {
        for (const response of [
          await getReport(owner.testKey, order.orderId, 'ko-KR'),
          await getReport(owner.testKey, failing.orderId, 'ko-KR'),
          await requestReport(owner.testKey, order.orderId, 'ja-JP'),
          await requestReport(owner.testKey, failing.orderId, 'ko-KR'),
        ]) {
          expect({ status: response.status, body: response.body }).toEqual({ status: 400, body: { code: 'ORDER_EXPIRED' } });
        }
      } finally {
        setClockOffset(0);
      }
    });
  });
});
