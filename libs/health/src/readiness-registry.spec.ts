import { ReadinessRegistry } from './readiness-registry';

describe('ReadinessRegistry', () => {
  it('is ready while every check passes and names the failing one', async () => {
    const registry = new ReadinessRegistry();
    registry.register('postgres', async () => undefined);
    expect(await registry.run()).toEqual({ ready: true, checks: { postgres: 'up' } });
    registry.register('nats', async () => {
      throw new Error('down');
    });
    expect(await registry.run()).toEqual({ ready: false, checks: { postgres: 'up', nats: 'down' } });
  });

  it('reports a check registered without gating and stays ready when it fails; draining still makes it unready', async () => {
    const registry = new ReadinessRegistry();
    registry.register('nats', async () => undefined);
    registry.register('postgres', () => Promise.reject(new Error('down')), { gating: false });
    expect(await registry.run()).toEqual({ ready: true, checks: { nats: 'up', postgres: 'down' } });
    registry.register('nats', () => Promise.reject(new Error('down')));
    expect(await registry.run()).toEqual({ ready: false, checks: { nats: 'down', postgres: 'down' } });
    registry.register('nats', async () => undefined);
    await registry.drain();
    expect(await registry.run()).toEqual({ ready: false, checks: { nats: 'up', postgres: 'down', draining: 'down' } });
  });

  it('drain() runs every drain step, waits for them and leaves the service not ready', async () => {
    const registry = new ReadinessRegistry();
    registry.register('postgres', async () => undefined);
    const finished: string[] = [];
    registry.onDrain(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      finished.push('consumers');
    });
    await registry.drain();
    expect(finished).toEqual(['consumers']);
    expect(await registry.run()).toEqual({ ready: false, checks: { postgres: 'up', draining: 'down' } });
  });
});
