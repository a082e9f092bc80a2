// The process-level error policy, in real child processes: an unhandled rejection is logged and survived,
// an uncaught exception is logged and ends the process.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(__dirname, '__fixtures__/unhandled-rejection.ts');

function run(...args: string[]) {
  return spawnSync(process.execPath, ['-r', path.join(ROOT, 'tools/register.js'), FIXTURE, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
}

describe('installProcessErrorHandlers', () => {
  it('logs an unhandled rejection with pino and keeps the process running', () => {
    const child = run('with-handlers');
    expect(child.status).toBe(0);
    expect(child.stdout).toContain('still alive');
    const logged = child.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; service: string; msg: string; err: { message: string } });
    expect(logged.map((line) => [line.level, line.service, line.err.message])).toEqual([[50, 'fixture', 'nobody awaits this']]);
  });

  it('without them Node ends the process on the same rejection (what the handler prevents)', () => {
    const child = run('without-handlers');
    expect(child.status).not.toBe(0);
    expect(child.stdout).not.toContain('still alive');
  });

  it('logs an uncaught exception as fatal and exits with status 1', () => {
    const child = run('with-handlers', 'throw');
    expect(child.status).toBe(1);
    expect(child.stdout).not.toContain('still alive');
    expect(child.stdout).toContain('"level":60');
    expect(child.stdout).toContain('thrown from a timer');
  });
});
