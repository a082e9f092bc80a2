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
 * Waits for this process's child running `scriptPath` (a bounded worker being started by a call just made) and pauses
 * it (SIGSTOP: it then uses no CPU, however long its call waits); its id. Only a new worker: callers make sure none
 * runs yet (configuring a bounded worker stops its idle one).
 */
export async function pauseChildRunning(scriptPath: string): Promise<number> {
  for (;;) {
    const [pid] = childPidsRunning(scriptPath);
    if (pid !== undefined) {
      process.kill(pid, 'SIGSTOP');
      return pid;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
