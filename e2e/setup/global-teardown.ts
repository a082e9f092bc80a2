import { existsSync, rmSync } from 'node:fs';
// Jest loads global setup and teardown outside its module mapping, so the stack is imported by path here.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { StackProcesses, stopPrivatePostgres } from '../../tools/stack/stack';
import { e2eLayout } from './e2e-layout';

export default async function globalTeardown(): Promise<void> {
  const layout = e2eLayout();
  if (!existsSync(StackProcesses.stateFile(layout))) {
    return;
  }
  await StackProcesses.load(layout).stopAll();
  rmSync(StackProcesses.stateFile(layout));
  // A private cluster stops with its stack. npm test starts a second run (the fault-injection file's) right after,
  // whose setup starts one on the same port.
  if (layout.privatePostgres) {
    await stopPrivatePostgres(layout.privatePostgres.dataDir);
  }
}
