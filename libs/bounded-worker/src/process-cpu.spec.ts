import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { processCpuMillis, processTreeCpuMillis } from './process-cpu';

// A child busy on the CPU for about `ms` of its own time (not wall time: a loaded machine only makes it take longer).
const BUSY = (ms: number): string => `const { cpuUsage } = process; while ((cpuUsage().user + cpuUsage().system) / 1000 < ${ms}) {}`;

describe('process CPU from /proc', () => {
  it('counts a process with its children: the ones it has reaped and the ones still running, not in its own figure', async () => {
    const own = processCpuMillis(process.pid);
    const tree = processTreeCpuMillis(process.pid);
    expect(own).not.toBeNull();
    expect(tree).not.toBeNull();
    // a child that ended and was reaped: counted (cutime, cstime)
    spawnSync(process.execPath, ['-e', BUSY(300)]);
    const afterReaped = processTreeCpuMillis(process.pid) ?? 0;
    expect(afterReaped - (tree ?? 0)).toBeGreaterThanOrEqual(250);
    // a child still running: counted from its own /proc entry
    const running = spawn(process.execPath, ['-e', `${BUSY(300)}; setInterval(() => undefined, 1000)`]);
    try {
      for (let waited = 0; waited < 200 && (processCpuMillis(running.pid ?? 0) ?? 0) < 250; waited += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect((processTreeCpuMillis(process.pid) ?? 0) - afterReaped).toBeGreaterThanOrEqual(250);
      // this process's own figure holds none of its children's
      expect((processCpuMillis(process.pid) ?? 0) - (own ?? 0)).toBeLessThan((processTreeCpuMillis(process.pid) ?? 0) - (tree ?? 0));
    } finally {
      running.kill();
      await once(running, 'exit');
    }
  });
});
