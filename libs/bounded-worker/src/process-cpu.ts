import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

/**
 * CPU time (utime + stime, all its threads) a process has used, in ms, from /proc/<pid>/stat; null when gone or not
 * Linux. Shared by the bounded workers and the bounded ExifTool: both tell a busy file from a starved machine by it.
 */
export function processCpuMillis(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command (field 2) is in parentheses and may hold spaces: utime and stime are the 12th and 13th fields after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / ticksPerSecond() : null;
}
