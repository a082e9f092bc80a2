import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
// Jest loads global setup and teardown outside its module mapping, so the stack is imported by path here.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { createDatabase, ensureNats, ensurePostgres, newStack, privatePostgresPid, StackProcesses, startPrivatePostgres, waitForJetStream } from '../../tools/stack/stack';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { loopbackTlsCertificate } from '../../libs/testing/src/tls-fixtures';
import { clientTlsDir, e2eLayout } from './e2e-layout';

export default async function globalSetup(): Promise<void> {
  const layout = e2eLayout();
  if (existsSync(StackProcesses.stateFile(layout))) {
    // A previous run that did not tear down: stop what it left behind.
    await StackProcesses.load(layout).stopAll();
  }
  if (layout.privatePostgres && !privatePostgresPid(layout.privatePostgres.dataDir)) {
    await startPrivatePostgres(layout.privatePostgres.port, layout.privatePostgres.dataDir);
  }
  await ensurePostgres(layout.adminDatabaseUrl);
  if (layout.natsUrl.includes(',')) {
    // A cluster: test-infra started it; its JetStream answers once a meta leader is elected.
    await waitForJetStream(layout.natsUrl, 30_000);
  } else {
    await ensureNats(layout.natsUrl);
  }
  await createDatabase(layout.adminDatabaseUrl, layout.database, true);
  mkdirSync(path.dirname(layout.clockOffsetFile ?? ''), { recursive: true });
  writeFileSync(layout.clockOffsetFile ?? '', '0');
  loopbackTlsCertificate(clientTlsDir(layout.name));
  const stack = newStack(layout, true);
  try {
    await stack.startAll();
  } catch (error) {
    await stack.stopAll();
    throw error;
  }
}
