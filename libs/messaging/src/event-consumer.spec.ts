// Pure parts of the consumer: which failures are the infrastructure's, how a consumer's deadline is resolved, and
// which subjects a filter reads.
import { defineEvent, defineJob } from '@cp/contracts';
import { EgressError, EgressFailure } from '@cp/egress';
import { NatsError } from 'nats';
import { QueryFailedError } from 'typeorm';
import { ConsumerDefinition, DEFAULT_EVENT_DEADLINE_MS, deadlineVariableOf, isTransientInfrastructureError, JobDeadlineExceededError, resolveDeadlineMs, subjectMatches } from './event-consumer';
import { RpcUnavailableError } from './rpc-client';

class Payload {}

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isTransientInfrastructureError', () => {
  it.each([
    ['pg-pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['pg connection refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['Node dual-stack connect (AggregateError)', new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], '')],
    ['PostgreSQL shutting down (57P01)', withCode('terminating connection due to administrator command', '57P01')],
    ['too many connections (53300)', withCode('sorry, too many clients already', '53300')],
    ['TypeORM wrapping a broken connection', new QueryFailedError('SELECT 1', [], withCode('Connection terminated unexpectedly', '08006'))],
    ['a cause chain', new Error('query failed', { cause: new Error('Connection terminated unexpectedly') })],
    ['NATS connection closed', new NatsError('connection closed', 'CONNECTION_CLOSED')],
    ['NATS request timeout', new NatsError('TIMEOUT', 'TIMEOUT')],
    ['NATS no responders', new NatsError('503', '503')],
    ['an RPC nobody answered', new RpcUnavailableError('orders.get')],
  ])('%s is transient', (_name, error) => {
    expect(isTransientInfrastructureError(error)).toBe(true);
  });

  it.each([
    ['a statement timeout (57014: the statement, so it counts)', withCode('canceling statement due to statement timeout', '57014')],
    ['a unique violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['TypeORM wrapping a constraint error', new QueryFailedError('INSERT', [], withCode('null value in column', '23502'))],
    ['a handler bug', new Error('handler bug')],
    ['a deadline', new JobDeadlineExceededError('d', 1000)],
    ['a 503 code that is not a NATS error', withCode('upstream', '503')],
    ['not an error', 'not an error'],
  ])('%s is not transient', (_name, error) => {
    expect(isTransientInfrastructureError(error)).toBe(false);
  });

  // A destination named by input (a source URL, a webhook, a zero-copy target) that refuses connections reads like a
  // database that is down; held as an outage it would keep a consumer slot for minutes without counting an attempt.
  const refusedByClient = (): EgressError => new EgressError(EgressFailure.NETWORK, 'connect ECONNREFUSED 203.0.113.5:1');
  it.each([
    ['an egress failure: a URL from input that refuses connections', refusedByClient()],
    ["a caller's error caused by one (the URL fetcher's SourceFetchError)", new Error('connect ECONNREFUSED 203.0.113.5:1', { cause: refusedByClient() })],
    ['an egress failure that kept the socket error as its cause', Object.assign(refusedByClient(), { cause: withCode('connect ECONNREFUSED 203.0.113.5:1', 'ECONNREFUSED') })],
    ['an egress failure among the errors of an AggregateError', new AggregateError([refusedByClient(), withCode('connect ECONNREFUSED ::1:443', 'ECONNREFUSED')], '')],
    ['an egress deadline', new EgressError(EgressFailure.DEADLINE, 'timeout exceeded when trying to connect')],
  ])('%s is never transient, whatever its message or code', (_name, error) => {
    expect(isTransientInfrastructureError(error)).toBe(false);
  });

  it('survives a cause cycle', () => {
    const error = new Error('a');
    (error as Error & { cause?: unknown }).cause = error;
    expect(isTransientInfrastructureError(error)).toBe(false);
  });
});

describe('resolveDeadlineMs', () => {
  const job = defineJob('job.test.kind', Payload, 300_000);
  const event = defineEvent('evt.test.happened', Payload);

  it('names the variable after the durable', () => {
    expect(deadlineVariableOf('watermark-embed')).toBe('JOB_DEADLINE_MS_WATERMARK_EMBED');
  });

  it("uses the job's declared deadline, the definition's, then the event default", () => {
    expect(resolveDeadlineMs({ durable: 'a', message: job }, {})).toBe(300_000);
    expect(resolveDeadlineMs({ durable: 'a', message: job, deadlineMs: 5000 }, {})).toBe(5000);
    expect(resolveDeadlineMs({ durable: 'a', message: event }, {})).toBe(DEFAULT_EVENT_DEADLINE_MS);
    expect(resolveDeadlineMs({ durable: 'a' }, {})).toBe(DEFAULT_EVENT_DEADLINE_MS);
  });

  it('lets JOB_DEADLINE_MS_<DURABLE> override everything', () => {
    expect(resolveDeadlineMs({ durable: 'watermark-embed', message: job, deadlineMs: 5000 }, { JOB_DEADLINE_MS_WATERMARK_EMBED: '90000' })).toBe(90_000);
  });

  it.each(['abc', '0', '999', '-5000', '1.5e3', '86400001', '5000ms'])('refuses %p, naming the variable', (value) => {
    expect(() => resolveDeadlineMs({ durable: 'watermark-embed', message: job }, { JOB_DEADLINE_MS_WATERMARK_EMBED: value })).toThrow(/JOB_DEADLINE_MS_WATERMARK_EMBED/);
  });
});

describe('ConsumerDefinition', () => {
  // Checked by the type checker (`tsc` runs over the specs): an unused @ts-expect-error is itself an error.
  it('requires an exhaustion path: onExhausted, or parkOnlyBecause with a reason, not neither nor both', () => {
    const base = { durable: 'd', stream: 'S', filterSubject: 's', payload: Payload, handle: () => Promise.resolve() };
    // @ts-expect-error neither onExhausted nor parkOnlyBecause
    const neither: ConsumerDefinition<Payload> = { ...base };
    // @ts-expect-error both at once
    const both: ConsumerDefinition<Payload> = { ...base, onExhausted: () => Promise.resolve(), parkOnlyBecause: 'x' };
    const hook: ConsumerDefinition<Payload> = { ...base, onExhausted: () => Promise.resolve() };
    const parkOnly: ConsumerDefinition<Payload> = { ...base, parkOnlyBecause: 'nothing to mark' };
    expect([neither, both, hook, parkOnly].map((definition) => definition.durable)).toEqual(['d', 'd', 'd', 'd']);
  });
});

describe('subjectMatches', () => {
  it.each([
    ['jobs.watermark.embed', 'jobs.watermark.embed', true],
    ['jobs.watermark.extract', 'jobs.watermark.embed', false],
    ['jobs.*.embed', 'jobs.watermark.embed', true],
    ['jobs.*', 'jobs.watermark.embed', false],
    ['jobs.>', 'jobs.watermark.embed', true],
    ['jobs.>', 'jobs', false],
    ['jobs.watermark.embed', 'jobs.watermark', false],
    ['jobs.watermark', 'jobs.watermark.embed', false],
  ])('filter %s, subject %s: %s', (filter, subject, expected) => {
    expect(subjectMatches(filter, subject)).toBe(expected);
  });
});
