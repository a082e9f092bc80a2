import { SystemClock } from '@cp/clock';
import { serviceDataSourceOptions } from '@cp/database';
import { Plan } from '@cp/contracts';
import { AccountsRepository, GATEWAY_DATA_ENTITIES } from '@cp/gateway-data-access';
import { MESSAGING_ENTITIES, OutboxWriter } from '@cp/messaging';
import { renameSync, writeFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { e2eLayout } from '../setup/e2e-layout';
import { databaseUrl, gatewayUrl, StackProcesses } from '@cp/stack';

export const layout = e2eLayout();

export function stack(): StackProcesses {
  return StackProcesses.load(layout);
}

export interface ApiResponse<TBody = unknown> {
  status: number;
  headers: Headers;
  body: TBody;
}

export async function api<TBody = Record<string, unknown>>(
  path: string,
  options: { key?: string; method?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; replica?: number } = {},
): Promise<ApiResponse<TBody>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) {
    headers.Authorization = `Bearer ${options.key}`;
  }
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  } else if (body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(`${gatewayUrl(layout, options.replica ?? 0)}${path}`, { method: options.method ?? 'GET', headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text so the test can show it
  }
  return { status: response.status, headers: response.headers, body: parsed as TBody };
}

/** A connection to one service's schema of the e2e database, for checks a client cannot make. */
export async function openSchema(schema: string): Promise<DataSource> {
  const dataSource = new DataSource(
    serviceDataSourceOptions({
      url: databaseUrl(layout),
      schema,
      entities: schema === 'gateway' ? [...GATEWAY_DATA_ENTITIES, ...MESSAGING_ENTITIES] : [],
      migrations: [],
      applicationName: 'e2e',
      poolSize: 2,
    }),
  );
  return dataSource.initialize();
}

export interface TestAccount {
  accountId: string;
  liveKey: string;
  testKey: string;
  liveKeyId: string;
}

/** Creates an account the way the admin CLI does (gateway schema and outbox). */
export async function createAccount(gateway: DataSource, plan: Plan, credits: number): Promise<TestAccount> {
  const accounts = new AccountsRepository(gateway, new OutboxWriter(new SystemClock()));
  const { account } = await accounts.createAccount(`e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, plan, null, credits);
  const live = await accounts.issueKey(account.id, 'live');
  const test = await accounts.issueKey(account.id, 'test');
  // The orders service learns the account and its credits from the gateway's event, a moment later: an order sent
  // before that is refused for want of credits (402), as a real client's would be in the same few milliseconds.
  await eventually(
    () => gateway.query<Array<{ balance: number }>>('SELECT balance FROM orders.credit_balance WHERE account_id = $1', [account.id]),
    (rows) => rows[0] !== undefined && rows[0].balance >= credits,
  );
  return { accountId: account.id, liveKey: live.key, testKey: test.key, liveKeyId: live.id };
}

export function accountsRepository(gateway: DataSource): AccountsRepository {
  return new AccountsRepository(gateway, new OutboxWriter(new SystemClock()));
}

/** Moves the clock of every service process (they read the offset file). */
export function setClockOffset(ms: number): void {
  // Written beside and renamed, so a service never reads a half-written file.
  const file = layout.clockOffsetFile ?? '';
  writeFileSync(`${file}.next`, String(ms));
  renameSync(`${file}.next`, file);
}

export async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) {
      throw new Error(`condition not reached in ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    last = await probe();
  }
  return last;
}
