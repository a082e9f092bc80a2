import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on every usual Linux: 10 ms steps). */
let clockTicks: number | undefined;
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'latin1', timeout: 5000 }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** The fields of /proc/<pid>/stat after the command (field 2, in parentheses, may hold spaces); null when gone or not Linux. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The sum of the given fields of /proc/<pid>/stat, as CPU time in ms; null when not readable. */
function cpuFieldsMillis(pid: number, indexes: readonly number[]): number | null {
  const fields = statFields(pid);
  if (!fields) return null;
  const ticks = indexes.reduce((sum, index) => sum + Number(fields[index]), 0);
  return Number.isFinite(ticks) ? (ticks * 1000) / ticksPerSecond() : null;
}

/**
 * CPU time (utime + stime, all its threads) a process has used, in ms, from /proc/<pid>/stat; null when gone or not
 * Linux. Shared by the bounded workers and the bounded ExifTool: both tell a busy file from a starved machine by it.
 */
export function processCpuMillis(pid: number): number | null {
  // utime and stime: the 12th and 13th fields after the command
  return cpuFieldsMillis(pid, [11, 12]);
}

/**
 * CPU time of a process with its children's, in ms: its own, that of the children it has reaped (cutime + cstime)
 * and that of those still running (from /proc/<pid>/task/<tid>/children). A child's CPU moves from the last to the
 * second when it ends, so the sum only grows. Null when not Linux, or without the children lists
 * (CONFIG_PROC_CHILDREN) or a thread ended meanwhile: not measured.
 */
export function processTreeCpuMillis(pid: number): number | null {
  const own = cpuFieldsMillis(pid, [11, 12, 13, 14]);
  if (own === null) return null;
  let total = own;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'latin1').split(/\s+/).filter(Boolean)) {
        total += processCpuMillis(Number(child)) ?? 0;
      }
    }
  } catch {
    return null;
  }
  return total;
}
