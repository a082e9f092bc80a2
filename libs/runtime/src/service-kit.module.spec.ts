import { ReadinessRegistry } from '@cp/health';
import { MessagingRuntime, NatsConnectionService } from '@cp/messaging';
import { DataSource } from 'typeorm';
import { ReadinessWiring } from './service-kit.module';

describe('ReadinessWiring', () => {
  // PostgreSQL down, NATS up: the dependencies every replica of a service shares.
  const wired = (gating: boolean): ReadinessRegistry => {
    const registry = new ReadinessRegistry();
    const dataSource = { query: () => Promise.reject(new Error('connect ECONNREFUSED')) } as unknown as DataSource;
    const nats = { ping: () => Promise.resolve() } as unknown as NatsConnectionService;
    const messaging = { stopConsumers: () => Promise.resolve() } as unknown as MessagingRuntime;
    new ReadinessWiring(registry, dataSource, nats, messaging, { gating }).onModuleInit();
    return registry;
  };

  it('a service behind its dependencies is not ready while one is down', async () => {
    expect(await wired(true).run()).toEqual({ ready: false, checks: { postgres: 'down', nats: 'up' } });
  });

  it('the public gateway (not gated) stays ready and lists the dependency down, until it drains', async () => {
    const registry = wired(false);
    expect(await registry.run()).toEqual({ ready: true, checks: { postgres: 'down', nats: 'up' } });
    await registry.drain();
    expect((await registry.run()).ready).toBe(false);
  });
});
