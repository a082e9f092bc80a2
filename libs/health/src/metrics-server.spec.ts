// Metrics only on the internal port: the metrics server serves them, the service's own HTTP app does not.
import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AddressInfo } from 'node:net';
import { HealthModule } from './health.module';
import { MetricsServer } from './metrics-server';

describe('metrics on the internal port', () => {
  const server = new MetricsServer({ host: '127.0.0.1', port: 0 });
  let metricsPort: number;
  let app: INestApplication;
  let publicPort: number;

  beforeAll(async () => {
    metricsPort = await server.start();
    const moduleRef = await Test.createTestingModule({ imports: [HealthModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    publicPort = (app.getHttpServer() as { address(): AddressInfo }).address().port;
  });

  afterAll(async () => {
    await server.stop();
    await app.close();
  });

  it('the metrics server answers GET /metrics in the Prometheus text format', async () => {
    const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    expect(await response.text()).toContain('process_cpu_user_seconds_total');
  });

  it('the metrics server answers nothing else', async () => {
    for (const [path, method] of [['/health', 'GET'], ['/', 'GET'], ['/metrics/x', 'GET'], ['/metrics', 'POST']]) {
      const response = await fetch(`http://127.0.0.1:${metricsPort}${path}`, { method });
      await response.arrayBuffer();
      expect({ path, method, status: response.status }).toEqual({ path, method, status: 404 });
    }
  });

  it("the service's own port has /health but no /metrics", async () => {
    expect((await fetch(`http://127.0.0.1:${publicPort}/health`)).status).toBe(200);
    const metrics = await fetch(`http://127.0.0.1:${publicPort}/metrics`);
    expect(metrics.status).toBe(404);
    expect(await metrics.text()).not.toContain('process_cpu_user_seconds_total');
  });
});
