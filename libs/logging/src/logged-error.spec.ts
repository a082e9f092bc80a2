import pino from 'pino';
import pinoHttp from 'pino-http';
import { Writable } from 'node:stream';
import { LOG_SERIALIZERS } from './logged-error';

/** An error as the S3 client raises it: the object's key and resource path (with the client's file name) as fields. */
class S3LikeError extends Error {
  code = 'NoSuchKey';
  key = '9/7/inputs/5/Jane Doe passport.png';
  resource = '/cp-inputs/9/7/inputs/5/Jane%20Doe%20passport.png';
  bucketname = 'cp-inputs';
}

function logged(error: unknown, through: 'pino' | 'pino-http' = 'pino'): Record<string, unknown> {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  // nestjs-pino builds the services' logger with pino-http, which wraps a custom err serializer.
  const logger = through === 'pino' ? pino({ serializers: LOG_SERIALIZERS }, destination) : pinoHttp({ serializers: LOG_SERIALIZERS }, destination).logger;
  logger.warn({ err: error }, 'storage failed');
  return JSON.parse(lines[0]) as Record<string, unknown>;
}

describe('the err serializer of the services\' logs', () => {
  it("names a storage error's object by its ids, not by the client's file name, its cause included", () => {
    const line = logged(new Error('read failed', { cause: new S3LikeError('The specified key does not exist.') }));
    expect(JSON.stringify(line)).not.toContain('Jane');
    expect((line.err as { message: string }).message).toMatch(/^read failed/);
    const top = logged(new S3LikeError('The specified key does not exist.')).err as Record<string, unknown>;
    expect(top).toMatchObject({ type: 'S3LikeError', code: 'NoSuchKey', key: '9/7/inputs/5/[name]', resource: '/cp-inputs/9/7/inputs/5/[name]', bucketname: 'cp-inputs' });
  });

  it('does the same in the logger nestjs-pino builds (pino-http), keeping the error type', () => {
    const err = logged(new S3LikeError('The specified key does not exist.'), 'pino-http').err as Record<string, unknown>;
    expect(err).toMatchObject({ type: 'S3LikeError', key: '9/7/inputs/5/[name]', resource: '/cp-inputs/9/7/inputs/5/[name]' });
  });

  it('leaves other errors as pino writes them', () => {
    expect(logged(new Error('boom')).err).toMatchObject({ type: 'Error', message: 'boom' });
    expect(logged('a string').err).toBe('a string');
  });
});
