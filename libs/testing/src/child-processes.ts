import { readdirSync, readFileSync } from 'node:fs';

/**
 * Ids of this process's children whose arguments include a path ending with `scriptPath` (e.g. `/c2pa-worker.mjs`),
 * from /proc: for a test that pauses a bounded worker's process (SIGSTOP) or kills it as the kernel would.
 */
export function childPidsRunning(scriptPath: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const args = readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0');
      if (parent === process.pid && args.some((arg) => arg.endsWith(scriptPath))) pids.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return pids;
}

/**
 * Waits for this process's child running `scriptPath` that is not one of `others` (a bounded worker being started by a
 * call just made) and pauses it (SIGSTOP: it then uses no CPU, however long its call waits); its id. `others`: the
 * children that ran before the call (childPidsRunning), since an earlier test file of this Jest worker can leave its
 * own idle worker of the same script running (its own module instance, which the test's closing does not reach).
 */
export async function pauseChildRunning(scriptPath: string, others: readonly number[]): Promise<number> {
  for (;;) {
    const [pid] = childPidsRunning(scriptPath).filter((other) => !others.includes(other));
    if (pid !== undefined) {
      process.kill(pid, 'SIGSTOP');
      return pid;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Runs `start`, a call that leaves a new idle child running `scriptPath` (a bounded worker's first call, ExifTool's
 * first task), and pauses that child (pauseChildRunning, the children that ran before the call left alone); its id.
 */
export async function pauseChildStartedBy(scriptPath: string, start: () => Promise<unknown>): Promise<number> {
  const others = childPidsRunning(scriptPath);
  await start();
  if (childPidsRunning(scriptPath).every((pid) => others.includes(pid))) throw new Error(`the call started no child running ${scriptPath}`);
  return pauseChildRunning(scriptPath, others);
}
