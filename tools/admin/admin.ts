// Operator CLI: accounts, API keys and credits.
//   npm run admin -- account create --name acme --plan pro --credits 1000 [--email ops@acme.test]
//   npm run admin -- key issue --account 1 --mode live|test
//   npm run admin -- key revoke --key-id 3
//   npm run admin -- key list --account 1
//   npm run admin -- credits add --account 1 --amount 500 [--reason "top-up"]
//   npm run admin -- demo            (find or create the demo account; issue a live and a test key)
// Add --json for machine-readable output. Uses DATABASE_URL (the gateway's database); the gateway must
// have started once so its schema exists. Events (account created, credits granted) go through the
// gateway's outbox, so the orders service receives them even if it is down right now.
import 'reflect-metadata';
import { SystemClock } from '@cp/clock';
import { serviceDataSourceOptions } from '@cp/database';
import { KeyMode, Plan, PLANS } from '@cp/contracts';
import { AccountsRepository, GATEWAY_DATA_ENTITIES } from '@cp/gateway-data-access';
import { MESSAGING_ENTITIES, OutboxWriter } from '@cp/messaging';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';

type Output = Record<string, unknown>;

function fail(message: string): never {
  process.stderr.write(`admin: ${message}\n`);
  process.exit(2);
}

function required(value: string | undefined, flag: string): string {
  if (!value) {
    fail(`--${flag} is required`);
  }
  return value;
}

function accountIdOf(value: string | undefined): string {
  const id = required(value, 'account');
  if (!/^[0-9]{1,20}$/.test(id)) {
    fail('--account must be an account id (digits)');
  }
  return id;
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      plan: { type: 'string', default: 'free' },
      credits: { type: 'string', default: '0' },
      email: { type: 'string' },
      account: { type: 'string' },
      mode: { type: 'string', default: 'live' },
      'key-id': { type: 'string' },
      amount: { type: 'string' },
      reason: { type: 'string', default: 'operator grant' },
      json: { type: 'boolean', default: false },
    },
  });
  const [resource, action] = positionals;
  const dataSource = new DataSource(
    serviceDataSourceOptions({
      url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/cp_dev',
      schema: 'gateway',
      entities: [...GATEWAY_DATA_ENTITIES, ...MESSAGING_ENTITIES],
      migrations: [],
      applicationName: 'admin-cli',
      poolSize: 2,
    }),
  );
  await dataSource.initialize();
  const accounts = new AccountsRepository(dataSource, new OutboxWriter(new SystemClock()));
  let output: Output;
  try {
    output = await run(accounts, `${resource ?? ''} ${action ?? ''}`.trim(), values);
  } finally {
    await dataSource.destroy();
  }
  process.stdout.write(values.json ? `${JSON.stringify(output)}\n` : `${Object.entries(output).map(([k, v]) => `${k}: ${String(v)}`).join('\n')}\n`);
}

async function run(accounts: AccountsRepository, command: string, values: Record<string, string | boolean | undefined>): Promise<Output> {
  const text = (flag: string): string | undefined => values[flag] as string | undefined;
  switch (command) {
    case 'account create': {
      const plan = text('plan') as Plan;
      if (!PLANS.includes(plan)) {
        fail(`--plan must be one of ${PLANS.join(', ')}`);
      }
      const credits = Number(text('credits'));
      if (!Number.isInteger(credits) || credits < 0) {
        fail('--credits must be a whole number >= 0');
      }
      const account = await accounts.createAccount(required(text('name'), 'name'), plan, text('email') ?? null, credits);
      return { accountId: account.id, name: account.name, plan: account.plan, credits };
    }
    case 'key issue': {
      const mode = text('mode') as KeyMode;
      if (mode !== 'live' && mode !== 'test') {
        fail('--mode must be live or test');
      }
      const accountId = accountIdOf(text('account'));
      if (!(await accounts.findAccount(accountId))) {
        fail(`account ${accountId} does not exist`);
      }
      const issued = await accounts.issueKey(accountId, mode);
      return { keyId: issued.id, mode, key: issued.key, note: 'shown once; only its hash is stored' };
    }
    case 'key revoke': {
      const keyId = required(text('key-id'), 'key-id');
      const revoked = await accounts.revokeKey(keyId, new Date());
      return { keyId, revoked };
    }
    case 'key list': {
      const keys = await accounts.listKeys(accountIdOf(text('account')));
      return Object.fromEntries(
        keys.map((key) => [`key ${key.id}`, `${key.keyPrefix}… ${key.mode} ${key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active'}`]),
      );
    }
    case 'credits add': {
      const amount = Number(required(text('amount'), 'amount'));
      if (!Number.isInteger(amount) || amount === 0) {
        fail('--amount must be a non-zero whole number');
      }
      const accountId = accountIdOf(text('account'));
      const grantId = await accounts.grantCredits(accountId, amount, text('reason') ?? 'operator grant');
      return { accountId, amount, grantId };
    }
    case 'demo': {
      const existing = await accounts.findAccountByName('demo');
      const account = existing ?? (await accounts.createAccount('demo', 'pro', 'demo@example.invalid', 1000));
      const live = await accounts.issueKey(account.id, 'live');
      const test = await accounts.issueKey(account.id, 'test');
      return { accountId: account.id, liveKey: live.key, testKey: test.key };
    }
    default:
      fail(`unknown command "${command}" (see the header of tools/admin/admin.ts)`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`admin: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
