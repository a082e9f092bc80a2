import { AccountErasureConsumers, DURABLES, deadlineVariableOf, OrderErasureConsumers } from '@cp/contracts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigValidationError, CoreEnv, validateEnv } from '@cp/config';
import { loadServiceConfig, nearestDeadlineVariables } from './deadline-env';
import { sourceFiles } from '@cp/testing';

const base = { PORT: '3000', DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/db' };

/** A service's start as `runService` loads its configuration: its own class, and the deadline family. */
const load = (env: NodeJS.ProcessEnv): CoreEnv => loadServiceConfig(() => validateEnv(CoreEnv, env), env);

function refusal(env: NodeJS.ProcessEnv): ConfigValidationError {
  try {
    load({ ...base, ...env });
  } catch (error) {
    if (error instanceof ConfigValidationError) {
      return error;
    }
    throw error;
  }
  throw new Error('the environment was accepted');
}

/**
 * Every durable name a consumer of apps/ registers: `durable: '…'` of a definition, `durable: AccountErasureConsumers.…` (or `OrderErasureConsumers.…`),
 * or `onResult('…'` of an order type.
 */
function durablesInCode(): string[] {
  const found = new Set<string>();
  for (const file of sourceFiles(path.resolve(__dirname, '../../../apps'))) {
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/(?:durable: |onResult\(\s*)'([a-z0-9-]+)'/g)) {
      found.add(match[1]);
    }
    // The erasure consumers name theirs from the lists the admin CLI waits on.
    for (const match of source.matchAll(/durable: AccountErasureConsumers\.([a-z]+)/g)) {
      found.add(AccountErasureConsumers[match[1] as keyof typeof AccountErasureConsumers]);
    }
    for (const match of source.matchAll(/durable: OrderErasureConsumers\.([a-z]+)/g)) {
      found.add(OrderErasureConsumers[match[1] as keyof typeof OrderErasureConsumers]);
    }
  }
  return [...found].sort();
}

describe('JOB_DEADLINE_MS_<DURABLE> at start', () => {
  it('the declared durables are exactly those the services register', () => {
    expect(durablesInCode()).toEqual([...DURABLES].sort());
  });

  it("accepts a valid deadline of any service's consumer (one environment may serve every service), and blank as unset", () => {
    expect(() => load({ ...base, JOB_DEADLINE_MS_WATERMARK_EMBED: '1800000', JOB_DEADLINE_MS_RETENTION_ORDER_STATUS: ' 1000 ', JOB_DEADLINE_MS_REPORTS_GENERATE: ' ' })).not.toThrow();
    for (const durable of DURABLES) {
      expect(() => load({ ...base, [deadlineVariableOf(durable)]: '86400000' })).not.toThrow();
    }
  });

  it('refuses a name no consumer has, naming the variable and the nearest known names', () => {
    const error = refusal({ JOB_DEADLINE_MS_WATERMARK_EMBEDD: '90000' });
    expect(error.variables).toEqual(['JOB_DEADLINE_MS_WATERMARK_EMBEDD']);
    expect(error.message).toContain('JOB_DEADLINE_MS_WATERMARK_EMBEDD: no consumer is named so');
    expect(error.message).toContain('nearest: JOB_DEADLINE_MS_WATERMARK_EMBED, ');
    // The durable spelt with dashes, as in the logs, is not the variable's name either.
    expect(refusal({ 'JOB_DEADLINE_MS_watermark-embed': '90000' }).variables).toEqual(['JOB_DEADLINE_MS_watermark-embed']);
  });

  it('refuses a value that is not a whole number of milliseconds from 1000 to 86400000, never echoing it', () => {
    for (const value of ['0', '999', '86400001', '15m', '1e6', '-5000', '90000.5', 'secret-value']) {
      const error = refusal({ JOB_DEADLINE_MS_UPLOADS_FETCH_SOURCE: value });
      expect({ value, variables: error.variables }).toEqual({ value, variables: ['JOB_DEADLINE_MS_UPLOADS_FETCH_SOURCE'] });
      expect(error.message).toContain('whole number of milliseconds from 1000 to 86400000');
      expect(error.message).not.toContain('secret-value');
    }
  });

  it("names every wrong deadline variable together with the class's own errors", () => {
    const error = refusal({ PORT: 'http', JOB_DEADLINE_MS_AIDETECT: '60000', JOB_DEADLINE_MS_REPORTS_GENERATE: 'soon' });
    expect(error.variables.sort()).toEqual(['JOB_DEADLINE_MS_AIDETECT', 'JOB_DEADLINE_MS_REPORTS_GENERATE', 'PORT']);
    expect(error.message).toContain('nearest: JOB_DEADLINE_MS_AIDETECT_DETECT');
  });

  it('suggests the nearest names first', () => {
    expect(nearestDeadlineVariables('JOB_DEADLINE_MS_WEBHOOKS_ORDER_FAIL')[0]).toBe('JOB_DEADLINE_MS_WEBHOOKS_ORDER_FAILED');
    expect(nearestDeadlineVariables('JOB_DEADLINE_MS_WATERMARK_EXTRAKT')[0]).toBe('JOB_DEADLINE_MS_WATERMARK_EXTRACT');
  });
});
