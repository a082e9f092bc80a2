import { NotFoundException } from '@nestjs/common';
import type { Request } from 'express';
import { HealthController } from './health.module';
import { ReadinessRegistry } from './readiness-registry';

function requestFrom(remoteAddress: string): Request {
  return { socket: { remoteAddress } } as unknown as Request;
}

describe('HealthController drain (Kubernetes preStop)', () => {
  it('refuses callers outside the pod with a plain 404 and keeps the service ready', async () => {
    const registry = new ReadinessRegistry();
    let drained = false;
    registry.onDrain(async () => {
      drained = true;
    });
    const controller = new HealthController(registry);
    await expect(controller.drain(requestFrom('10.1.2.3'))).rejects.toBeInstanceOf(NotFoundException);
    expect(drained).toBe(false);
    expect((await registry.run()).ready).toBe(true);
  });

  it('drains for the pod itself (loopback)', async () => {
    const registry = new ReadinessRegistry();
    let drained = false;
    registry.onDrain(async () => {
      drained = true;
    });
    const controller = new HealthController(registry);
    expect(await controller.drain(requestFrom('::ffff:127.0.0.1'))).toEqual({ status: 'drained' });
    expect(drained).toBe(true);
    expect((await registry.run()).ready).toBe(false);
  });
});
