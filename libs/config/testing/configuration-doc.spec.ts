import { IsBoolean, IsIn, IsInt, Max, Min } from 'class-validator';
import { Transform } from 'class-transformer';
import { CoreEnv, toBoolean } from '../src/core-env';
import { configurationDocProblems, declaredVariables, documentedRows, unboundedDurations } from './configuration-doc';

const required = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x', PORT: '3000' };

/** What the gateway reads from CoreEnv, each documented for `all`: the baseline the probes below change. */
class CoreOnly extends CoreEnv {}

describe('configurationDocProblems: catches what the table and a class disagree on', () => {
  it('reads the table: every row has variables and services (`all`, `all but the gateway`, short names)', () => {
    const rows = documentedRows();
    expect(rows.length).toBeGreaterThan(50);
    expect(rows.every((row) => row.names.length > 0 && row.services.length > 0)).toBe(true);
    const servicesOf = (name: string): string[] | undefined => rows.find((row) => row.names.includes(name))?.services;
    expect(servicesOf('S3_BUCKET_OUTPUTS')).toHaveLength(8);
    expect(servicesOf('S3_REGION')).toEqual(['orders', 'uploads', 'watermark-processor', 'ai-detector', 'reports', 'webhooks', 'retention']);
    expect(servicesOf('ANTI_AI_TARGET_ALLOWED_IPS')).toEqual(['orders', 'watermark-processor']);
  });

  it('a variable the class reads that the table does not list, and variables the table lists that it does not read', () => {
    class Probe extends CoreEnv {
      @IsInt()
      @Min(1)
      @Max(10)
      UNDOCUMENTED_PROBE: number = 3;
    }
    const problems = configurationDocProblems('reports', Probe, required);
    expect(problems).toContain('UNDOCUMENTED_PROBE: read by reports, not listed for it in docs/configuration.md');
    expect(problems).toContain('REPORTS_CONCURRENCY: listed for reports in docs/configuration.md, not read by it');
  });

  it('a default, a documented bound, a switch that refuses `yes`', () => {
    class Probe extends CoreOnly {
      @IsInt()
      @Min(1)
      @Max(6)
      override NATS_STREAM_REPLICAS: number = 2;

      @IsIn(['true', 'false'])
      override DATABASE_PREPARED_STATEMENTS = 'true' as unknown as boolean;
    }
    const problems = configurationDocProblems('api-gateway', Probe, required).filter((problem) => /^(NATS_STREAM_REPLICAS|DATABASE_PREPARED_STATEMENTS):/.test(problem));
    expect(problems).toEqual([
      'DATABASE_PREPARED_STATEMENTS: the switch refuses "YES" (Invalid configuration: DATABASE_PREPARED_STATEMENTS: DATABASE_PREPARED_STATEMENTS must be one of the following values: true, false)',
      'DATABASE_PREPARED_STATEMENTS: the switch refuses "1" (Invalid configuration: DATABASE_PREPARED_STATEMENTS: DATABASE_PREPARED_STATEMENTS must be one of the following values: true, false)',
      'DATABASE_PREPARED_STATEMENTS: the switch refuses "no" (Invalid configuration: DATABASE_PREPARED_STATEMENTS: DATABASE_PREPARED_STATEMENTS must be one of the following values: true, false)',
      'DATABASE_PREPARED_STATEMENTS: the switch refuses "False" (Invalid configuration: DATABASE_PREPARED_STATEMENTS: DATABASE_PREPARED_STATEMENTS must be one of the following values: true, false)',
      'NATS_STREAM_REPLICAS: documented default "1", api-gateway has "2"',
      'NATS_STREAM_REPLICAS: documented maximum 5, api-gateway has 6',
    ]);
  });

  it('a switch that follows the rule passes', () => {
    class Probe extends CoreOnly {
      @Transform(toBoolean)
      @IsBoolean()
      override DATABASE_PREPARED_STATEMENTS: boolean = true;
    }
    expect(configurationDocProblems('api-gateway', Probe, required).filter((problem) => problem.startsWith('DATABASE_PREPARED_STATEMENTS'))).toEqual([]);
  });
});

describe('unboundedDurations', () => {
  it('names a duration without a maximum, and a millisecond one a timer cannot take', () => {
    class Probe extends CoreEnv {
      @IsInt()
      @Min(1)
      PROBE_INTERVAL_MS: number = 1000;

      @IsInt()
      @Min(1)
      @Max(2 ** 31)
      PROBE_DEADLINE_MS: number = 1000;

      @IsInt()
      @Min(1)
      PROBE_WINDOW_HOURS: number = 1;
    }
    expect(unboundedDurations(Probe)).toEqual([
      'PROBE_INTERVAL_MS: no maximum',
      'PROBE_DEADLINE_MS: maximum 2147483648 is longer than a timer takes',
      'PROBE_WINDOW_HOURS: no maximum',
    ]);
    expect(unboundedDurations(CoreEnv)).toEqual([]);
    expect(declaredVariables(Probe).get('PROBE_INTERVAL_MS')).toEqual({ default: 1000, min: 1 });
  });
});
