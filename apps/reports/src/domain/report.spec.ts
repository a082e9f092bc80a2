import { EventSubjects, JobSubjects } from '@cp/contracts';
import { failureRetryable, Report, ReportState } from './report';

const t0 = new Date('2026-11-02T00:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const pdf = { bucket: 'reports', key: '7/42/reports/en-US/attempt-1.pdf', sha256: 'ab', size: 10 };

function requested(): Report {
  return Report.request({ orderId: '42', locale: 'en-US', accountId: '7', mode: 'live', reportType: 'watermarkDetection' }, t0).report;
}

const subjects = (events: ReadonlyArray<{ contract: { subject: string } }> | null) => events?.map((event) => event.contract.subject) ?? null;

describe('Report', () => {
  it('a request queues attempt 1 with its status event and its job', () => {
    const { report, events } = Report.request({ orderId: '42', locale: 'en-US', accountId: '7', mode: 'live', reportType: 'aiDetection' }, t0);
    expect(report.state).toMatchObject({ status: 'queued', attempt: 1, failedAttempts: 0, requeues: 0, requestedAt: t0, statusChangedAt: t0, orderExpired: false });
    expect(events.map((event) => event.payload)).toEqual([
      { orderId: '42', locale: 'en-US', status: 'queued', changedAt: t0.toISOString() },
      { orderId: '42', locale: 'en-US', attempt: 1 },
    ]);
    expect(subjects(events)).toEqual([EventSubjects.reportStatusChanged, JobSubjects.reportsGenerate]);
  });

  it('runs queued → processing → completed, announcing each status once (a redelivery only restarts the stuck timer)', () => {
    const report = requested();
    expect(subjects(report.start(1, at(1)))).toEqual([EventSubjects.reportStatusChanged]);
    expect(report.start(1, at(2))).toEqual([]);
    expect(report.state.statusChangedAt).toEqual(at(2));
    expect(subjects(report.complete(1, pdf, at(3)))).toEqual([EventSubjects.reportStatusChanged]);
    expect(report.state).toMatchObject({ status: 'completed', objectKey: pdf.key, pdfSha256: 'ab', pdfSize: 10, completedAt: at(3) });
    // a duplicate delivery finishing later changes nothing
    expect(report.complete(1, { ...pdf, key: 'other' }, at(4))).toBeNull();
    expect(report.fail(1, 'REPORT_GENERATION_FAILED', at(4))).toBeNull();
    expect(report.state.objectKey).toBe(pdf.key);
  });

  it('ignores a stale attempt and an expired order', () => {
    const report = requested();
    expect(report.start(2, at(1))).toBeNull();
    expect(report.state.status).toBe('queued');
    const expired = requested();
    expired.expire();
    expect(expired.start(1, at(1))).toBeNull();
    expect(expired.complete(1, pdf, at(1))).toBeNull();
  });

  it('starts attempt n+1 only after a retryable failure; watermark reports stop after 3 failed attempts', () => {
    const report = requested();
    expect(report.startsNewAttempt()).toBe(false);
    expect(report.retry(at(1))).toBeNull();
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      report.start(attempt, at(attempt));
      expect(subjects(report.fail(attempt, 'REPORT_GENERATION_FAILED', at(attempt)))).toEqual([EventSubjects.reportStatusChanged]);
      expect(report.state).toMatchObject({ status: 'failed', failedAttempts: attempt, failureRetryable: attempt < 3 });
      if (attempt < 3) {
        expect(subjects(report.retry(at(attempt)))).toEqual([EventSubjects.reportStatusChanged, JobSubjects.reportsGenerate]);
        expect(report.state).toMatchObject({ status: 'queued', attempt: attempt + 1, failureCode: null, failureRetryable: null });
      }
    }
    expect(report.startsNewAttempt()).toBe(false);
    expect([1, 2, 3, 4].map((failed) => failureRetryable('REPORT_GENERATION_FAILED', 'watermarkDetection', failed))).toEqual([true, true, false, false]);
    expect(failureRetryable('REPORT_NOT_AVAILABLE', 'watermarkDetection', 1)).toBe(false);
    expect(failureRetryable('REPORT_GENERATION_FAILED', 'aiDetection', 10)).toBe(true);
  });

  it('requeues a stuck attempt as the sweep saw it, and not one that moved on', () => {
    const report = requested();
    expect(report.requeue({ attempt: 1, status: 'queued' }, at(10), at(11))?.map((event) => event.payload)).toEqual([{ orderId: '42', locale: 'en-US', attempt: 1 }]);
    expect(report.state).toMatchObject({ requeues: 1, statusChangedAt: at(11) });
    expect(report.requeue({ attempt: 1, status: 'queued' }, at(10), at(12))).toBeNull();
    expect(report.requeue({ attempt: 1, status: 'processing' }, at(20), at(21))).toBeNull();
    expect(report.requeue({ attempt: 2, status: 'queued' }, at(20), at(21))).toBeNull();
  });

  it('expiry drops the object the report pointed at', () => {
    const report = requested();
    report.start(1, at(1));
    report.complete(1, pdf, at(2));
    expect(report.expire()).toEqual({ bucket: pdf.bucket, key: pdf.key });
    expect(report.state).toMatchObject({ orderExpired: true, objectBucket: null, objectKey: null });
    expect(report.expire()).toBeNull();
  });

  it('keeps its own copy of the state it was loaded from', () => {
    const stored: ReportState = { ...requested().state };
    Report.fromState(stored).start(1, at(1));
    expect(stored.status).toBe('queued');
  });
});
