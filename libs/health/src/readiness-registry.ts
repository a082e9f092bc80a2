import { Injectable } from '@nestjs/common';

export type ReadinessCheck = () => Promise<void>;

/**
 * Dependencies a service needs before it takes traffic (PostgreSQL, NATS, storage), and the drain step
 * a pod runs before it stops (Kubernetes preStop): after `drain()` the service is never ready again.
 */
@Injectable()
export class ReadinessRegistry {
  private readonly checks = new Map<string, ReadinessCheck>();
  /** Checks reported by /ready without making the service unready (see `register`). */
  private readonly reportedOnly = new Set<string>();
  private readonly drainSteps: (() => Promise<void>)[] = [];
  private draining = false;

  /**
   * `gating: false`: the check is reported, and its failure does not make the service unready. For the public
   * edge, whose every replica shares the dependency: all of them unready at once leaves clients the ingress's own
   * page instead of the API's JSON 503 with `Retry-After`, and no replica to send the request to anyway.
   */
  register(name: string, check: ReadinessCheck, options: { gating?: boolean } = {}): void {
    this.checks.set(name, check);
    if (options.gating === false) {
      this.reportedOnly.add(name);
    } else {
      this.reportedOnly.delete(name);
    }
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
    return { ready: !this.draining && entries.every(([name, state]) => state === 'up' || this.reportedOnly.has(name)), checks };
  }
}
