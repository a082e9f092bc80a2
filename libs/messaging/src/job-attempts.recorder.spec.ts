import { JobAttemptsRecorder } from './job-attempts.recorder';
import { JobAttemptRecord, JobAttemptsRepository } from './job-attempts.repository';

const attempt = (orderId: string): JobAttemptRecord => ({
  consumer: 'orders-output-completed',
  subject: 'evt.processor.output.completed',
  eventId: `event-${orderId}`,
  orderId,
  delivery: 1,
  startedAt: new Date('2026-11-26T08:00:00Z'),
  durationMs: 3,
  outcome: 'ok',
  reason: null,
});

/** A repository fake: what each statement would have written. */
class StatementLog {
  readonly statements: string[][] = [];
  failNext = false;
  asRepository(): JobAttemptsRepository {
    return {
      recordAll: (attempts: JobAttemptRecord[]) => {
        if (this.failNext) {
          this.failNext = false;
          return Promise.reject(new Error('connection refused'));
        }
        this.statements.push(attempts.map((record) => record.orderId));
        return Promise.resolve();
      },
    } as unknown as JobAttemptsRepository;
  }
}

describe('JobAttemptsRecorder', () => {
  it('writes the attempts recorded close together in one statement, on its own after the delay', async () => {
    const log = new StatementLog();
    const recorder = new JobAttemptsRecorder(log.asRepository());
    recorder.record(attempt('1'));
    recorder.record(attempt('2'));
    recorder.record(attempt('3'));
    expect(log.statements).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(log.statements).toEqual([['1', '2', '3']]);
    recorder.record(attempt('4'));
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(log.statements).toEqual([['1', '2', '3'], ['4']]);
  });

  it('flush writes what waits at once and nothing when nothing waits', async () => {
    const log = new StatementLog();
    const recorder = new JobAttemptsRecorder(log.asRepository());
    recorder.record(attempt('7'));
    await recorder.flush();
    await recorder.flush();
    expect(log.statements).toEqual([['7']]);
  });

  it('a failed write is dropped, never thrown, and the next batch is written', async () => {
    const log = new StatementLog();
    const recorder = new JobAttemptsRecorder(log.asRepository());
    log.failNext = true;
    recorder.record(attempt('8'));
    await expect(recorder.flush()).resolves.toBeUndefined();
    recorder.record(attempt('9'));
    await recorder.flush();
    expect(log.statements).toEqual([['9']]);
  });

  it('a batch of 200 is written without waiting for the delay', async () => {
    const log = new StatementLog();
    const recorder = new JobAttemptsRecorder(log.asRepository());
    for (let index = 0; index < 201; index++) recorder.record(attempt(String(index)));
    await Promise.resolve();
    await Promise.resolve();
    expect(log.statements.map((statement) => statement.length)).toEqual([200]);
    await recorder.flush();
    expect(log.statements.map((statement) => statement.length)).toEqual([200, 1]);
  });
});
