import { readFileSync } from 'node:fs';
import { boundedExiftool } from './bounded-exiftool';

describe('boundedExiftool', () => {
  it('runs perl under its address-space limit, as the kernel\'s first choice when the pod runs out of memory', async () => {
    const exiftool = boundedExiftool({ maxMemoryMb: 300, taskTimeoutMillis: 20_000 });
    try {
      expect(await exiftool.version()).toMatch(/^\d+\.\d+/);
      const [pid] = exiftool.pids;
      expect(pid).toBeGreaterThan(0);
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('perl');
      const addressSpace = /^Max address space\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
      expect(Number(addressSpace?.[1])).toBe(300 * 1024 * 1024);
      expect(readFileSync(`/proc/${pid}/oom_score_adj`, 'utf8').trim()).toBe('1000');
    } finally {
      await exiftool.end();
    }
  });
});
