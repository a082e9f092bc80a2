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
  // A private cluster stops with its stack (fast shutdown). The teardown waits for it to be gone: npm test starts
  // a second run (the fault-injection file's) right after, whose setup would take a server still shutting down
  // for a running one.
  const dataDir = layout.privatePostgres?.dataDir;
  const pid = dataDir ? privatePostgresPid(dataDir) : null;
  if (dataDir && pid) {
    process.kill(pid, 'SIGINT');
    for (const until = Date.now() + 60_000; privatePostgresPid(dataDir) && Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
