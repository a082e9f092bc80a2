// A service that cannot start exits with status 1 and one JSON fatal line naming what failed, in real child
// processes: never exit 0, never a process left running half started, never Nest's coloured multi-line dump.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { freePort } from '@cp/testing';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(__dirname, '__fixtures__/failing-start.ts');

interface LogLine {
  level: number;
  service: string;
  msg: string;
  err?: { message: string };
}

function start(...args: string[]) {
  return startWith({}, ...args);
}

function startWith(env: NodeJS.ProcessEnv, ...args: string[]) {
  const child = spawnSync(process.execPath, ['-r', path.join(ROOT, 'tools/register.js'), FIXTURE, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
  const lines = `${child.stdout}${child.stderr}`.split('\n').filter((line) => line.trim() !== '');
  return { status: child.status, lines, fatal: lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as LogLine).filter((line) => line.level === 60) };
}

describe('runService when the start fails', () => {
  it('a provider that fails while the application is built: status 1, one JSON fatal line, nothing else unparsed', () => {
    const child = start('factory');
    expect(child.status).toBe(1);
    expect(child.fatal.map((line) => [line.service, line.msg])).toEqual([['fixture', 'fixture did not start: factory refused; exiting with status 1']]);
    expect(child.lines.filter((line) => !line.startsWith('{'))).toEqual([]);
  });

  it('a module whose initialisation fails (as the NATS connection does): status 1, not 0 and not left running', () => {
    const child = start('init');
    expect(child.status).toBe(1);
    expect(child.lines.join('\n')).not.toContain('started');
    expect(child.fatal.map((line) => line.msg)).toEqual(['fixture did not start: init step refused; exiting with status 1']);
    expect(child.lines.join('\n')).not.toContain('the process keeps running');
  });

  it('a JOB_DEADLINE_MS_ variable that names no consumer stops the start before anything is built: status 1, the variable and the nearest names', () => {
    const child = startWith({ JOB_DEADLINE_MS_WATERMARK_EMBEDD: '900000' }, 'factory');
    expect(child.status).toBe(1);
    const fatal = child.lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: string; service: string; msg: string });
    expect(fatal).toEqual([
      {
        level: 'fatal',
        service: 'fixture',
        msg: expect.stringContaining('JOB_DEADLINE_MS_WATERMARK_EMBEDD: no consumer is named so (JOB_DEADLINE_MS_<DURABLE>); nearest: JOB_DEADLINE_MS_WATERMARK_EMBED') as string,
      },
    ]);
    expect(child.lines.join('\n')).not.toContain('factory refused');
  });

  it('a configuration loader that throws something else than a ConfigValidationError: status 1 and one fatal line, not a logged rejection', () => {
    const child = start('config');
    expect(child.status).toBe(1);
    expect(child.fatal.map((line) => line.msg)).toEqual(['fixture did not start: configuration: Invalid URL; exiting with status 1']);
    expect(child.lines.join('\n')).not.toContain('the process keeps running');
  });

  it('PostgreSQL not answering: the fatal line names it', async () => {
    const port = await freePort();
    const child = start('postgres', String(port));
    expect(child.status).toBe(1);
    expect(child.fatal).toHaveLength(1);
    expect(child.fatal[0].msg).toContain('fixture did not start: PostgreSQL (connect, migrate schema fixture): ');
    expect(child.fatal[0].msg).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
  });
});
