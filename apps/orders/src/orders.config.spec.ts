import { describeConfigurationDoc } from '@cp/config/testing';
import { loadOrdersConfig, OrdersEnv } from './orders.config';

const base = { PORT: '3101', DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/db' };

describe('orders config: stuck orders', () => {
  it('defaults to 6 hours without progress and a sweep every minute', () => {
    expect(loadOrdersConfig(base).stuckOrders).toEqual({ maxAgeMs: 6 * 3600_000, sweepIntervalMs: 60_000 });
  });

  it('reads STUCK_ORDER_MAX_AGE_MS and STUCK_ORDER_SWEEP_INTERVAL_MS', () => {
    expect(loadOrdersConfig({ ...base, STUCK_ORDER_MAX_AGE_MS: '7200000', STUCK_ORDER_SWEEP_INTERVAL_MS: '1000' }).stuckOrders).toEqual({ maxAgeMs: 7_200_000, sweepIntervalMs: 1000 });
  });

  it.each(['0', '59999', 'soon', '-1'])('refuses STUCK_ORDER_MAX_AGE_MS=%s (under a minute would fail orders still working)', (value) => {
    expect(() => loadOrdersConfig({ ...base, STUCK_ORDER_MAX_AGE_MS: value })).toThrow(/STUCK_ORDER_MAX_AGE_MS/);
  });
});

describe('orders config: jobs per account', () => {
  it('holds 4 unfinished jobs of an account per queue by default, reads QUEUED_JOBS_PER_ACCOUNT and refuses 0', () => {
    expect(loadOrdersConfig(base).queuedJobsPerAccount).toBe(4);
    expect(loadOrdersConfig({ ...base, QUEUED_JOBS_PER_ACCOUNT: '12' }).queuedJobsPerAccount).toBe(12);
    expect(() => loadOrdersConfig({ ...base, QUEUED_JOBS_PER_ACCOUNT: '0' })).toThrow(/QUEUED_JOBS_PER_ACCOUNT/);
  });
});

describe('orders config: upload window', () => {
  it('defaults to 12 hours (spec 3.1), reads UPLOAD_WINDOW_HOURS and refuses less than an hour', () => {
    expect(loadOrdersConfig(base).uploadWindowMs).toBe(12 * 3600_000);
    expect(loadOrdersConfig({ ...base, UPLOAD_WINDOW_HOURS: '3' }).uploadWindowMs).toBe(3 * 3600_000);
    expect(() => loadOrdersConfig({ ...base, UPLOAD_WINDOW_HOURS: '0' })).toThrow(/UPLOAD_WINDOW_HOURS/);
  });
});

describe('orders config: private zero-copy targets', () => {
  it('bounds test orders to 1,000 a day by default, reads TEST_ORDERS_PER_DAY and refuses 0', () => {
    expect(loadOrdersConfig(base).testOrdersPerDay).toBe(1000);
    expect(loadOrdersConfig({ ...base, TEST_ORDERS_PER_DAY: '50' }).testOrdersPerDay).toBe(50);
    expect(() => loadOrdersConfig({ ...base, TEST_ORDERS_PER_DAY: '0' })).toThrow(/TEST_ORDERS_PER_DAY/);
  });

  it('accepts ANTI_AI_TARGET_ALLOWED_IPS outside production (a local test stack)', () => {
    expect(loadOrdersConfig({ ...base, ANTI_AI_TARGET_ALLOWED_IPS: '127.0.0.1' }).antiAi.allowedTargetIps).toEqual(['127.0.0.1']);
  });

  it('refuses to start in production with ANTI_AI_TARGET_ALLOWED_IPS set', () => {
    expect(() => loadOrdersConfig({ ...base, NODE_ENV: 'production', ANTI_AI_TARGET_ALLOWED_IPS: '127.0.0.1' })).toThrow(/ANTI_AI_TARGET_ALLOWED_IPS/);
  });
});

// STUCK_ORDER_MAX_AGE_MS (up to 30 days) is an age the sweep compares with `updated_at`, never a timer's delay.
describeConfigurationDoc('orders', OrdersEnv, { notTimers: ['STUCK_ORDER_MAX_AGE_MS'] });
