import { Injectable } from '@nestjs/common';

export type ReadinessCheck = () => Promise<void>;

/**
 * Dependencies a service needs before it takes traffic (PostgreSQL, NATS, storage), and the drain step
 * a pod runs before it stops (Kubernetes preStop): after `drain()` the service is never ready again.
 */
@Injectable()
export class ReadinessRegistry {
  private readonly checks = new Map<string, ReadinessCheck>();
  private readonly drainSteps: (() => Promise<void>)[] = [];
  private draining = false;

  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /** Work to stop before the pod ends, e.g. pulling new jobs (the jobs in flight finish). */
  onDrain(step: () => Promise<void>): void {
    this.drainSteps.push(step);
  }

  async drain(): Promise<void> {
    this.draining = true;
    await Promise.all(this.drainSteps.map((step) => step()));
  }

  async run(timeoutMs = 2000): Promise<{ ready: boolean; checks: Record<string, 'up' | 'down'> }> {
    const entries = await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check(),
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
            }),
          ]);
          return [name, 'up'] as const;
        } catch {
          return [name, 'down'] as const;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const checks: Record<string, 'up' | 'down'> = Object.fromEntries(entries);
    if (this.draining) {
      checks.draining = 'down';
    }
    return { ready: !this.draining && entries.every(([, state]) => state === 'up'), checks };
  }
}
