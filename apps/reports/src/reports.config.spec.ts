import 'reflect-metadata';
import { describeConfigurationDoc } from '@cp/config/testing';
import { loadReportsConfig, ReportsEnv } from './reports.config';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };

describe('reports configuration', () => {
  it('has defaults, with fault injection off', () => {
    const config = loadReportsConfig(base);
    expect(config.http.port).toBe(3105);
    expect(config.reports).toMatchObject({ concurrency: 2, jobAckWaitMs: 60_000, stuckTimeoutMs: 600_000, faultInjection: { enabled: false, slowMs: 5000 } });
  });

  it('reads numbers and the test switch from the environment', () => {
    const config = loadReportsConfig({ ...base, REPORTS_CONCURRENCY: '4', REPORTS_JOB_ACK_WAIT_MS: '5000', REPORTS_FAULT_INJECTION: 'true', REPORTS_FAULT_SLOW_MS: '100' });
    expect(config.reports).toMatchObject({ concurrency: 4, jobAckWaitMs: 5000, faultInjection: { enabled: true, slowMs: 100 } });
  });

  it('refuses fault injection in production', () => {
    expect(() => loadReportsConfig({ ...base, NODE_ENV: 'production', REPORTS_FAULT_INJECTION: 'true' })).toThrow(/REPORTS_FAULT_INJECTION/);
    expect(loadReportsConfig({ ...base, NODE_ENV: 'production', REPORTS_FAULT_INJECTION: 'false' }).env).toBe('production');
  });

  it('names a wrong value', () => {
    expect(() => loadReportsConfig({ ...base, REPORTS_CONCURRENCY: '0' })).toThrow(/REPORTS_CONCURRENCY/);
  });
});

describeConfigurationDoc('reports', ReportsEnv);
