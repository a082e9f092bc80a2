import { deeplyNestedXmp, withPngXmp } from '@cp/testing';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { attributeExiftoolFailure, BoundedExiftool, boundedExiftool, ExiftoolFileFailure, ExiftoolMachineFailure, isExiftoolFileFailure } from './bounded-exiftool';

const LIMITS = { maxMemoryMb: 512, taskTimeoutMillis: 20_000, cpuBudgetMillis: 10_000 };

describe('attributeExiftoolFailure', () => {
  const timeout = new Error('timeout: waited 20000ms');
  const died = new Error('Process terminated before task completed ({"gracefully":false})');

  // Review: every timeout was the file's fault, so an ordinary file timed out on an overloaded machine was refused for good.
  it('blames the machine for a deadline reached on little CPU, and the file for one reached on its CPU budget', () => {
    const starved = attributeExiftoolFailure(timeout, { cpuMillis: 400, overBudget: false }, LIMITS);
    expect(starved).toBeInstanceOf(ExiftoolMachineFailure);
    expect(isExiftoolFileFailure(starved)).toBe(false);
    expect((starved as ExiftoolMachineFailure).cpuMillis).toBe(400);
    const busy = attributeExiftoolFailure(timeout, { cpuMillis: 10_000, overBudget: false }, LIMITS);
    expect(busy).toBeInstanceOf(ExiftoolFileFailure);
    expect(busy).toMatchObject({ exceeded: 'cpu' });
    expect(starved).toMatchObject({ reason: 'starved' });
  });

  it('blames the machine when the CPU could not be read (no /proc): a later attempt can tell', () => {
    expect(attributeExiftoolFailure(timeout, { cpuMillis: null, overBudget: false }, LIMITS)).toBeInstanceOf(ExiftoolMachineFailure);
    expect(attributeExiftoolFailure(timeout, undefined, LIMITS)).toBeInstanceOf(ExiftoolMachineFailure);
  });

  it('blames the file for a process ended over its CPU budget, or dead past its memory limit', () => {
    expect(attributeExiftoolFailure(died, { cpuMillis: 10_100, overBudget: true }, LIMITS)).toMatchObject({ exceeded: 'cpu' });
    expect(attributeExiftoolFailure(died, undefined, LIMITS)).toMatchObject({ exceeded: 'memory' });
  });

  // Its own memory limit makes perl exit (1) or fault (SIGSEGV); SIGKILL comes from the kernel when the pod is out of memory.
  it('blames the machine for a process the kernel killed (SIGKILL), and the file for one that faulted', () => {
    const killed = attributeExiftoolFailure(died, { cpuMillis: null, overBudget: false, signal: 'SIGKILL' }, LIMITS);
    expect(killed).toBeInstanceOf(ExiftoolMachineFailure);
    expect(killed).toMatchObject({ reason: 'killed' });
    expect(attributeExiftoolFailure(died, { cpuMillis: null, overBudget: false, signal: 'SIGSEGV' }, LIMITS)).toMatchObject({ exceeded: 'memory' });
  });

  it('leaves other failures as they are (no perl, a task ExifTool refused)', () => {
    const other = new Error('perl: command not found');
    expect(attributeExiftoolFailure(other, undefined, LIMITS)).toBe(other);
  });
});

describe('boundedExiftool', () => {
  let dir: string;
  let small: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bounded-exiftool-'));
    small = join(dir, 'small.png');
    await writeFile(small, await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } }).png().toBuffer());
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Starts perl and pauses it (SIGSTOP: it then uses no CPU, whatever its task); its id. */
  async function paused(exiftool: BoundedExiftool): Promise<number> {
    await exiftool.version();
    const [pid] = exiftool.pids;
    process.kill(pid, 'SIGSTOP');
    return pid;
  }

  const resume = (pid: number): void => {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // ended
    }
  };

  /** The error a task failed with, or null. */
  const failureOf = (task: Promise<unknown>): Promise<unknown> => task.then(() => null, (error: unknown) => error);

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

  // With a fake CPU reading: the same paused task is the file's fault or the machine's only by what it used.
  it('ends a task that its CPU reading puts over budget as the file\'s fault, and one that reaches its deadline under it as the machine\'s', async () => {
    let fakeCpu = 0;
    const exiftool = boundedExiftool({ maxMemoryMb: 300, taskTimeoutMillis: 60_000, cpuBudgetMillis: 1000, cpuMillis: () => fakeCpu });
    // 6 s: the read after the failure is the first task of a new perl, which took up to about 1.1 s under load (see below)
    const waiting = boundedExiftool({ maxMemoryMb: 300, taskTimeoutMillis: 6000, cpuBudgetMillis: 1000, cpuMillis: () => 0 });
    try {
      const pid = await paused(exiftool);
      const read = failureOf(exiftool.read(small));
      await new Promise((resolve) => setTimeout(resolve, 300));
      fakeCpu = 5000;
      expect(await read).toMatchObject({ name: 'ExiftoolFileFailure', exceeded: 'cpu' });
      resume(pid);
      const waitingPid = await paused(waiting);
      expect(await failureOf(waiting.read(small))).toMatchObject({ name: 'ExiftoolMachineFailure', reason: 'starved', cpuMillis: 0 });
      resume(waitingPid);
      // Each failed task ended its process: the next file gets a new one.
      expect((await exiftool.read(small)).FileType).toBe('PNG');
      expect((await waiting.read(small)).FileType).toBe('PNG');
    } finally {
      await exiftool.end();
      await waiting.end();
    }
  }, 60_000);

  // Review: a file that keeps ExifTool busy without memory cost its whole deadline, and a starved ordinary file was
  // blamed the same way. Real ExifTool, real CPU readings.
  it('refuses a file that keeps ExifTool busy on the CPU as the file\'s fault, before its wall deadline', async () => {
    const busy = join(dir, 'nested.png');
    // About 5 s of CPU when read (quadratic in the depth), in 50 MB.
    await writeFile(busy, withPngXmp(await sharp(small).png().toBuffer(), deeplyNestedXmp(2500)));
    const exiftool = boundedExiftool({ maxMemoryMb: 512, taskTimeoutMillis: 120_000, cpuBudgetMillis: 1000 });
    try {
      const error = await failureOf(exiftool.read(busy));
      expect(error).toBeInstanceOf(ExiftoolFileFailure);
      expect(error).toMatchObject({ exceeded: 'cpu' });
      expect((await exiftool.read(small)).FileType).toBe('PNG');
    } finally {
      await exiftool.end();
    }
  }, 120_000);

  it('blames the machine for a task whose process the kernel killed (SIGKILL, as when the pod runs out of memory)', async () => {
    const exiftool = boundedExiftool({ maxMemoryMb: 512, taskTimeoutMillis: 60_000 });
    try {
      const pid = await paused(exiftool);
      const read = failureOf(exiftool.read(small));
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(pid, 'SIGKILL');
      const error = await read;
      expect(error).toBeInstanceOf(ExiftoolMachineFailure);
      expect(error).toMatchObject({ reason: 'killed' });
      expect((await exiftool.read(small)).FileType).toBe('PNG');
    } finally {
      await exiftool.end();
    }
  }, 60_000);

  it('blames the file for a process that died past its memory limit', async () => {
    const many = join(dir, 'many.png');
    const properties = Array.from({ length: 40_000 }, (_, i) => `<e:p${i}>v</e:p${i}>`).join('');
    await writeFile(many, withPngXmp(await sharp(small).png().toBuffer(), Buffer.from(`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:e="http://example.com/e/">${properties}</rdf:Description></rdf:RDF></x:xmpmeta>`, 'latin1')));
    const exiftool = boundedExiftool({ maxMemoryMb: 128, taskTimeoutMillis: 60_000 });
    try {
      expect(await failureOf(exiftool.read(many))).toMatchObject({ name: 'ExiftoolFileFailure', exceeded: 'memory' });
      expect((await exiftool.read(small)).FileType).toBe('PNG');
    } finally {
      await exiftool.end();
    }
  }, 60_000);

  it('blames the machine for a task that waited (perl paused) until its deadline, and reads the next file', async () => {
    // 6 s, not 2: the read after the failure is the first task of a new perl (loading its modules), which took up to
    // about 1.1 s of its timeout with the test's core shared with three busy processes, and went past 2 s with two jest
    // workers on it too; the paused task waits it out whatever its length.
    const exiftool = boundedExiftool({ maxMemoryMb: 512, taskTimeoutMillis: 6000, cpuBudgetMillis: 1000 });
    try {
      const pid = await paused(exiftool);
      const error = await failureOf(exiftool.read(small));
      resume(pid);
      expect(error).toBeInstanceOf(ExiftoolMachineFailure);
      expect(isExiftoolFileFailure(error)).toBe(false);
      expect((error as ExiftoolMachineFailure).cpuMillis).toBeLessThan(1000);
      expect((await exiftool.read(small)).FileType).toBe('PNG');
    } finally {
      await exiftool.end();
    }
  }, 60_000);
});
