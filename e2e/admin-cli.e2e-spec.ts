// The operator's admin CLI on the running stack: an account it creates, and credits it adds, can be used the moment
// it prints them. The credits reach the orders service through the gateway's outbox and the EVENTS stream, a moment
// after the CLI wrote them; the CLI waits until the orders service says it applied them.
import { databaseUrl, ROOT } from '@cp/stack';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { layout, openSchema } from './support/e2e-stack';
import { createEmbed, embedBody } from './support/orders';

/** `npm run admin -- <args> --json` against the e2e stack's database and NATS. */
function admin(args: string[]): { status: number | null; stdout: string; stderr: string; output: Record<string, unknown> | null } {
  const run = spawnSync(process.execPath, ['-r', path.join(ROOT, 'tools/register.js'), path.join(ROOT, 'tools/admin/admin.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: databaseUrl(layout), NATS_URL: layout.natsUrl },
    timeout: 90_000,
  });
  let output: Record<string, unknown> | null = null;
  try {
    output = JSON.parse(run.stdout) as Record<string, unknown>;
  } catch {
    // not JSON (an error): the test shows stdout and stderr
  }
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, output };
}

describe('admin CLI: accounts and credits usable as soon as printed', () => {
  it('account create waits until the orders service holds the credits; an order sent at once is accepted', async () => {
    const created = admin(['account', 'create', '--name', `cli-${randomUUID().slice(0, 8)}`, '--plan', 'pro', '--credits', '3', '--json']);
    expect({ status: created.status, stderr: created.stderr }).toEqual({ status: 0, stderr: '' });
    expect(created.output).toMatchObject({ plan: 'pro', credits: 3, creditsApplied: true, balance: 3 });
    const accountId = String(created.output?.accountId);

    const key = admin(['key', 'issue', '--account', accountId, '--mode', 'live', '--json']);
    expect(key.status).toBe(0);
    // Three texts: all three credits, right after the CLI returned.
    const order = await createEmbed(String(key.output?.key), embedBody([{ fileName: 'photo.png', texts: ['a', 'b', 'c'] }]));
    expect({ status: order.status, code: order.body.code }).toEqual({ status: 200, code: undefined });

    const added = admin(['credits', 'add', '--account', accountId, '--amount', '2', '--json']);
    expect(added.status).toBe(0);
    expect(added.output).toMatchObject({ accountId, amount: 2, creditsApplied: true, balance: 2 });
  });

  it('--wait 0 returns at once without asking the orders service; a bad --wait is refused before anything is written', async () => {
    const name = `cli-${randomUUID().slice(0, 8)}`;
    const refused = admin(['account', 'create', '--name', name, '--credits', '1', '--wait', 'soon', '--json']);
    expect({ status: refused.status, stderr: refused.stderr }).toEqual({ status: 2, stderr: 'admin: --wait must be whole seconds from 0 to 3600\n' });

    const help = admin(['--help']);
    expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: '' });
    expect(help.stdout).toContain('account create --name');
    const unknown = admin(['account', 'create', '--nmae', name]);
    expect({ status: unknown.status, stderr: unknown.stderr }).toEqual({ status: 2, stderr: expect.stringContaining('(admin --help lists the commands)') as unknown });

    const quick = admin(['account', 'create', '--name', name, '--credits', '1', '--wait', '0', '--json']);
    expect(quick.status).toBe(0);
    expect(quick.output).toMatchObject({ name, credits: 1 });
    expect(quick.output).not.toHaveProperty('creditsApplied');
    const gateway = await openSchema('gateway');
    try {
      const rows = await gateway.query<Array<{ count: string }>>('SELECT count(*) AS count FROM account WHERE name = $1', [name]);
      expect(rows[0].count).toBe('1');
    } finally {
      await gateway.destroy();
    }
  });
});
