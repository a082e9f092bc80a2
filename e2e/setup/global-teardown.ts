import { existsSync, rmSync } from 'node:fs';
// Jest loads global setup and teardown outside its module mapping, so the stack is imported by path here.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { privatePostgresPid, StackProcesses } from '../../tools/stack/stack';
import { e2eLayout } from './e2e-layout';

export default async function globalTeardown(): Promise<void> {
  const layout = e2eLayout();
  if (!existsSync(StackProcesses.stateFile(layout))) {
    return;
  }
  await StackProcesses.load(layout).stopAll();
  rmSync(StackProcesses.stateFile(layout));
  // A private cluster stops with its stack (fast shutdown).
  const pid = layout.privatePostgres ? privatePostgresPid(layout.privatePostgres.dataDir) : null;
  if (pid) {
    process.kill(pid, 'SIGINT');
  }
}
