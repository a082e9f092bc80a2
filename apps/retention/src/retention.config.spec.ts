import 'reflect-metadata';
import { describeConfigurationDoc } from '@cp/config/testing';
import { loadRetentionConfig, RetentionEnv } from './retention.config';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };

describe('retention configuration: the grace of a failed order', () => {
  it('is 24 hours by default, and read in hours', () => {
    expect(loadRetentionConfig(base).retention.failedOrderGraceMs).toBe(24 * 3600_000);
    expect(loadRetentionConfig({ ...base, RETENTION_FAILED_ORDER_GRACE_HOURS: '3' }).retention.failedOrderGraceMs).toBe(3 * 3600_000);
  });

  it('refuses less than 3 hours (a job of the order may still read an input) and a fraction', () => {
    expect(() => loadRetentionConfig({ ...base, RETENTION_FAILED_ORDER_GRACE_HOURS: '2' })).toThrow(/RETENTION_FAILED_ORDER_GRACE_HOURS/);
    expect(() => loadRetentionConfig({ ...base, RETENTION_FAILED_ORDER_GRACE_HOURS: '1.5' })).toThrow(/RETENTION_FAILED_ORDER_GRACE_HOURS/);
  });
});

describeConfigurationDoc('retention', RetentionEnv);
