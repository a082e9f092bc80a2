import { context, diag, propagation } from '@opentelemetry/api';
import { Writable } from 'node:stream';
import { diagnosticsLogger } from './diagnostics-logger';
import { startTracing } from './tracing-sdk';

/** A pino destination that keeps each JSON line. */
function lines(): Writable & { records: Array<Record<string, unknown>> } {
  const records: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      records.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return Object.assign(stream, { records });
}

describe("the OpenTelemetry SDK's diagnostics", () => {
  it('are JSON lines of the service at WARN and above by default, with the error the SDK passed (as a warning)', () => {
    const out = lines();
    const { logger } = diagnosticsLogger('orders', {}, out);
    logger.debug('batch exported');
    logger.info('exporter started');
    logger.warn('Dropped 12 spans because maxQueueSize reached');
    logger.error('export failed', new Error('connect ECONNREFUSED 10.0.0.9:4318'));
    // an SDK error is a warning of the service: traces are lost, the service's own work is not
    expect(out.records.map((record) => [record.level, record.msg, record.service, record.component, record.sdkLevel])).toEqual([
      [40, 'Dropped 12 spans because maxQueueSize reached', 'orders', 'opentelemetry', undefined],
      [40, 'export failed', 'orders', 'opentelemetry', 'error'],
    ]);
    expect(out.records[1].err).toMatchObject({ type: 'Error', message: 'connect ECONNREFUSED 10.0.0.9:4318' });
  });

  it.each([
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['ERROR', ['error']],
    ['none', []],
    ['loud', ['warn', 'error']],
  ])('follow OTEL_LOG_LEVEL=%s', (level, expected) => {
    const out = lines();
    const { logger } = diagnosticsLogger('orders', { OTEL_LOG_LEVEL: level }, out);
    logger.verbose('verbose');
    logger.debug('debug');
    logger.info('info');
    logger.warn('warn');
    logger.error('error');
    expect(out.records.map((record) => record.msg)).toEqual(expected);
  });

  it('write one message at most once a minute, then say how many were left out (a collector down fails every batch)', () => {
    const out = lines();
    let clock = 1_000_000;
    const { logger } = diagnosticsLogger('orders', {}, out, () => clock);
    for (let second = 0; second < 130; second += 5) {
      clock = 1_000_000 + second * 1000;
      logger.error('{"message":"connect ECONNREFUSED 10.0.0.9:4318"}');
    }
    logger.warn('another message');
    expect(out.records.map((record) => [record.msg, record.repeated])).toEqual([
      ['{"message":"connect ECONNREFUSED 10.0.0.9:4318"}', undefined],
      ['{"message":"connect ECONNREFUSED 10.0.0.9:4318"}', 11],
      ['{"message":"connect ECONNREFUSED 10.0.0.9:4318"}', 11],
      ['another message', undefined],
    ]);
  });

  it('reach the log once tracing is started, and stop when it is shut down', async () => {
    const out = lines();
    const tracing = startTracing('webhooks', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, out);
    expect(tracing).toBeDefined();
    diag.warn('collector refused the batch');
    diag.info('below the default level');
    await tracing?.shutdown();
    context.disable();
    propagation.disable();
    diag.warn('after shutdown');
    expect(out.records.map((record) => [record.msg, record.service])).toEqual([['collector refused the batch', 'webhooks']]);
  });
});
