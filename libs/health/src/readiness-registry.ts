import { Injectable } from '@nestjs/common';

export type ReadinessCheck = () => Promise<void>;

/** Dependencies a service needs before it takes traffic (PostgreSQL, NATS, storage). */
@Injectable()
export class ReadinessRegistry {
  private readonly checks = new Map<string, ReadinessCheck>();

  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
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
    const checks = Object.fromEntries(entries);
    return { ready: entries.every(([, state]) => state === 'up'), checks };
  }
}
