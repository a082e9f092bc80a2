import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailableError } from './database-unavailable';

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailableError', () => {
  it.each([
    ['pg-pool waiting for a free connection', new Error('timeout exceeded when trying to connect')],
    ['pg connect timeout', new Error('Connection terminated due to connection timeout')],
    ['a connection cut under a query', new Error('Connection terminated unexpectedly')],
    ['connection refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['administrator shutdown (57P01)', withCode('terminating connection due to administrator command', '57P01')],
    ['starting up (57P03)', withCode('the database system is starting up', '57P03')],
    ['too many connections (53300)', withCode('sorry, too many clients already', '53300')],
    ['connection exception class 08', withCode('connection failure', '08006')],
    ['wrapped as a cause', new Error('query failed', { cause: withCode('refused', 'ECONNREFUSED') })],
    ['TypeORM driverError', new QueryFailedError('SELECT 1', [], withCode('x', '57P01'))],
    ['AggregateError of several addresses', new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')], '')],
  ])('%s is unavailable', (_name, error) => {
    expect(isDatabaseUnavailableError(error)).toBe(true);
  });

  it.each([
    ['a constraint violation', new QueryFailedError('INSERT', [], withCode('duplicate key value', '23505'))],
    ['a statement cancelled by statement_timeout (57014)', withCode('canceling statement due to statement timeout', '57014')],
    ['a plain error', new Error('boom')],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('%s is not', (_name, error) => {
    expect(isDatabaseUnavailableError(error)).toBe(false);
  });
});
