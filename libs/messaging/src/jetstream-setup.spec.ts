import { NatsError } from 'nats';
import { isJetStreamElectionError, retryDuringElection } from './jetstream-setup';

/** A JetStream API error as nats.js builds it from the server's answer. */
function apiError(description: string, errCode: number, status = 503): NatsError {
  const error = new NatsError(description, String(status));
  error.api_error = { code: status, err_code: errCode, description };
  return error;
}

describe('JetStream set-up during a leader election', () => {
  it.each([
    ['no responders (no leader subscribed yet)', new NatsError('503', '503')],
    ['a request timeout', new NatsError('TIMEOUT', 'TIMEOUT')],
    ['JetStream system temporarily unavailable', apiError('JetStream system temporarily unavailable', 10008)],
    ['no meta leader', apiError('JetStream cluster can not handle request', 10074, 500)],
    ['a node restarting not counted yet', apiError('insufficient resources', 10023)],
    ['a stream whose peers are catching up', apiError('stream is offline', 10118, 500)],
  ])('treats %s as an election', (_what, error) => {
    expect(isJetStreamElectionError(error)).toBe(true);
  });

  it.each([
    ['a refused configuration', apiError('stream name already in use with a different configuration', 10058, 400)],
    ['a subject overlap', apiError('subjects overlap with an existing stream', 10065, 400)],
    ['a plain error', new Error('boom')],
    ['not an error', 'timeout'],
  ])('does not treat %s as an election', (_what, error) => {
    expect(isJetStreamElectionError(error)).toBe(false);
  });

  it('repeats a step while it fails on the election, then returns its result', async () => {
    const failures = [new NatsError('503', '503'), apiError('JetStream system temporarily unavailable', 10008)];
    const retried: number[] = [];
    let calls = 0;
    const step = async (): Promise<string> => {
      calls += 1;
      const failure = failures.shift();
      if (failure) {
        throw failure;
      }
      return 'streams ready';
    };
    await expect(retryDuringElection(step, { pauseMs: 1, onRetry: (_error, attempt) => retried.push(attempt) })).resolves.toBe('streams ready');
    expect(calls).toBe(3);
    expect(retried).toEqual([1, 2]);
  });

  it('throws another failure at once, without repeating the step', async () => {
    let calls = 0;
    const refused = apiError('subjects overlap with an existing stream', 10065, 400);
    await expect(
      retryDuringElection(
        async () => {
          calls += 1;
          throw refused;
        },
        { pauseMs: 1 },
      ),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
  });

  it('gives up at the deadline with the election error itself (the service does not start)', async () => {
    let calls = 0;
    const electing = apiError('JetStream system temporarily unavailable', 10008);
    await expect(
      retryDuringElection(
        async () => {
          calls += 1;
          throw electing;
        },
        { deadlineMs: 50, pauseMs: 10 },
      ),
    ).rejects.toBe(electing);
    expect(calls).toBeGreaterThan(1);
  });
});
