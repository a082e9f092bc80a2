import 'reflect-metadata';
import { ClassConstructor } from 'class-transformer';
import { getMetadataStorage } from 'class-validator';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigValidationError, validateEnv } from '../src/validate-env';

/** The eight services, as docs/configuration.md's `services` column names them after `serviceOf`. */
export type ServiceName = 'api-gateway' | 'orders' | 'uploads' | 'watermark-processor' | 'ai-detector' | 'reports' | 'webhooks' | 'retention';

const ALL_SERVICES: readonly ServiceName[] = ['api-gateway', 'orders', 'uploads', 'watermark-processor', 'ai-detector', 'reports', 'webhooks', 'retention'];

/** The short names the table uses. */
const SHORT_NAMES: Readonly<Record<string, ServiceName>> = { gateway: 'api-gateway', processor: 'watermark-processor' };

/**
 * Variables every service reads outside its environment class (so `validateEnv` never sees them), each with where.
 * Anything else the table lists for a service must be a property of that service's class.
 */
const READ_OUTSIDE_THE_CLASS: Readonly<Record<string, string>> = {
  OTEL_EXPORTER_OTLP_ENDPOINT: 'libs/tracing (tracingConfigured, startTracing)',
};

/** One row of the table in docs/configuration.md. */
export interface DocumentedRow {
  names: string[];
  services: ServiceName[];
  /** The `default` column, as written. */
  defaultText: string;
  /** The `meaning` column, as written. */
  meaning: string;
}

const DOC_PATH = path.resolve(__dirname, '../../../docs/configuration.md');

/** `all`, `all but the gateway`, `same` (the row above's), or a comma-separated list of services. */
function parseServices(cell: string, previous: ServiceName[]): ServiceName[] {
  const text = cell.trim();
  if (text === 'all') return [...ALL_SERVICES];
  if (text === 'all but the gateway') return ALL_SERVICES.filter((service) => service !== 'api-gateway');
  if (text === 'same') return previous;
  if (text === 'the same services but the gateway') return previous.filter((service) => service !== 'api-gateway');
  return text.split(',').map((part) => {
    const name = part.trim();
    const service = SHORT_NAMES[name] ?? ALL_SERVICES.find((candidate) => candidate === name);
    if (!service) {
      throw new Error(`docs/configuration.md: unknown service "${name}" in "${cell}"`);
    }
    return service;
  });
}

/** The rows of the variable table of docs/configuration.md, in order. */
export function documentedRows(): DocumentedRow[] {
  const rows: DocumentedRow[] = [];
  let previous: ServiceName[] = [];
  for (const line of readFileSync(DOC_PATH, 'utf8').split('\n')) {
    if (!line.startsWith('| `')) continue;
    const [variables, services, defaultText, meaning] = line.slice(1, -1).split(' | ').map((cell) => cell.trim());
    const names = [...variables.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]);
    // A family of variables (`JOB_DEADLINE_MS_<CONSUMER>`, read by @cp/messaging per consumer), not one of a class.
    if (names.length === 0) continue;
    previous = parseServices(services, previous);
    rows.push({ names, services: previous, defaultText, meaning });
  }
  return rows;
}

/** What the environment class declares about one variable. */
interface Declared {
  default: unknown;
  min?: number;
  max?: number;
}

/** The variables an environment class validates (its own and inherited, mixins included), with default and bounds. */
export function declaredVariables(schema: ClassConstructor<object>): Map<string, Declared> {
  const defaults = new schema() as Record<string, unknown>;
  const declared = new Map<string, Declared>();
  for (const metadata of getMetadataStorage().getTargetValidationMetadatas(schema, '', true, false)) {
    const entry = declared.get(metadata.propertyName) ?? { default: defaults[metadata.propertyName] };
    const bound = (metadata.constraints as unknown[] | undefined)?.[0];
    if (metadata.name === 'min' && typeof bound === 'number') entry.min = bound;
    if (metadata.name === 'max' && typeof bound === 'number') entry.max = bound;
    declared.set(metadata.propertyName, entry);
  }
  return declared;
}

/** The parenthesised parts of a cell, and the cell without them. */
function splitParentheses(cell: string): { bare: string; groups: string[] } {
  const groups = [...cell.matchAll(/\(([^()]*)\)/g)].map((match) => match[1]);
  return { bare: cell.replace(/\s*\([^()]*\)/g, ''), groups };
}

const number = (text: string): number => Number(text.replace(/,/g, ''));

/** Bounds written as `(a–b)`, `(min a)`, `(minimum a)`, `(max b)`, alone or as one `;`-separated part of a group. */
function documentedBounds(cells: string[]): { min?: number; max?: number } {
  const bounds: { min?: number; max?: number } = {};
  for (const part of cells.flatMap((cell) => splitParentheses(cell).groups).flatMap((group) => group.split(';').map((piece) => piece.trim()))) {
    const range = /^(\d[\d,]*)–(\d[\d,]*)$/.exec(part);
    const min = /^(?:min|minimum) (\d[\d,]*)$/.exec(part);
    const max = /^max (\d[\d,]*)$/.exec(part);
    if (range) Object.assign(bounds, { min: number(range[1]), max: number(range[2]) });
    if (min) bounds.min = number(min[1]);
    if (max) bounds.max = number(max[1]);
  }
  return bounds;
}

/**
 * The documented defaults of a row by variable: a backquoted literal, or `undefined` for "unset…" / "— (required)".
 * A row whose default column cannot be matched to its variables one to one (prose such as "ImageNet mean/std", or
 * per-service values) gives nothing.
 */
function documentedDefaults(row: DocumentedRow): Map<string, string | undefined> {
  const items = splitParentheses(row.defaultText)
    .bare.split(/,\s+(?=[^`]*(?:`[^`]*`[^`]*)*$)/)
    .map((item) => item.trim());
  const valueOf = (item: string): string | undefined | null => {
    const literal = /^`([^`]*)`$/.exec(item);
    if (literal) return literal[1];
    if (/^unset\b/.test(item) || item === '—') return undefined;
    return null;
  };
  const values = items.map(valueOf);
  const defaults = new Map<string, string | undefined>();
  if (values.length === row.names.length) {
    row.names.forEach((name, index) => {
      const value = values[index];
      if (value !== null) defaults.set(name, value);
    });
  } else if (values.length === 1 && values[0] !== null) {
    for (const name of row.names) defaults.set(name, values[0]);
  }
  return defaults;
}

const SWITCH_WORDS: ReadonlyArray<[string, boolean]> = [
  ['YES', true],
  ['1', true],
  ['no', false],
  ['False', false],
];

/** Whether a switch reads true/false, 1/0, yes/no in any case and refuses any other word naming itself (configuration.md's rule). */
function switchProblems(schema: ClassConstructor<object>, name: string, env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  for (const [word, expected] of SWITCH_WORDS) {
    try {
      const value = (validateEnv(schema, { ...env, [name]: word }) as Record<string, unknown>)[name];
      if (value !== expected) problems.push(`${name}: the switch reads "${word}" as ${JSON.stringify(value)}, not ${String(expected)}`);
    } catch (error) {
      problems.push(`${name}: the switch refuses "${word}" (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  try {
    validateEnv(schema, { ...env, [name]: 'on' });
    problems.push(`${name}: the switch accepts "on" instead of refusing it`);
  } catch (error) {
    if (!(error instanceof ConfigValidationError && error.variables.includes(name))) {
      problems.push(`${name}: "on" is refused without naming the variable`);
    }
  }
  return problems;
}

/**
 * Where docs/configuration.md and one service's environment class disagree: a variable the class validates that the
 * table does not list for the service, one listed that the service does not read, a default or a documented bound
 * (`(a–b)`, `(min a)`, `(max b)`) the class does not have, a switch that does not follow the table's rule. `env` is
 * what the service needs to validate at all (e.g. `DATABASE_URL`). Empty when they agree.
 */
export function configurationDocProblems(service: ServiceName, schema: ClassConstructor<object>, env: NodeJS.ProcessEnv): string[] {
  const declared = declaredVariables(schema);
  const rows = documentedRows().filter((row) => row.services.includes(service));
  const documented = new Set(rows.flatMap((row) => row.names));
  const problems: string[] = [];
  for (const name of declared.keys()) {
    if (!documented.has(name)) problems.push(`${name}: read by ${service}, not listed for it in docs/configuration.md`);
  }
  for (const row of rows) {
    const defaults = documentedDefaults(row);
    const bounds = row.names.length === 1 ? documentedBounds([row.defaultText, row.meaning]) : {};
    for (const name of row.names) {
      const variable = declared.get(name);
      if (!variable) {
        if (!READ_OUTSIDE_THE_CLASS[name]) problems.push(`${name}: listed for ${service} in docs/configuration.md, not read by it`);
        continue;
      }
      if (defaults.has(name)) {
        const expected = defaults.get(name);
        const actual = asText(variable.default);
        if (actual !== expected) problems.push(`${name}: documented default ${JSON.stringify(expected)}, ${service} has ${JSON.stringify(actual)}`);
      }
      if (bounds.min !== undefined && bounds.min !== variable.min) problems.push(`${name}: documented minimum ${bounds.min}, ${service} has ${String(variable.min)}`);
      if (bounds.max !== undefined && bounds.max !== variable.max) problems.push(`${name}: documented maximum ${bounds.max}, ${service} has ${String(variable.max)}`);
      if (isSwitch(variable.default) || isSwitch(defaults.get(name))) {
        problems.push(...switchProblems(schema, name, env));
      }
    }
  }
  return problems;
}

/** A class default as the table writes it: a string, number or boolean as its text, nothing as `undefined`. */
function asText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** A default of true or false, as a boolean or as the word (a class that kept the raw string, or the table). */
function isSwitch(value: unknown): boolean {
  return typeof value === 'boolean' || value === 'true' || value === 'false';
}

/** Node's timers take at most 2^31 − 1 ms; a longer delay fires after 1 ms (a `TimeoutOverflowWarning`). */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * Duration variables (`*_MS`, `*_SECONDS`, `*_MINUTES`, `*_HOURS`, `*_DAYS`) without an upper bound, and `*_MS` ones
 * whose bound a timer cannot take: an absurd value (a typo with three more zeros) would start the service and then
 * make a loop spin every millisecond, a deadline fire at once or a date invalid, instead of stopping it at boot.
 * `notTimers`: milliseconds that only ever meet dates (an age compared with `updated_at`), never a timer.
 */
export function unboundedDurations(schema: ClassConstructor<object>, options: { notTimers?: readonly string[] } = {}): string[] {
  const problems: string[] = [];
  for (const [name, variable] of declaredVariables(schema)) {
    if (!/_(MS|SECONDS|MINUTES|HOURS|DAYS)$/.test(name) || typeof variable.default !== 'number') continue;
    if (variable.max === undefined) {
      problems.push(`${name}: no maximum`);
    } else if (name.endsWith('_MS') && variable.max > LONGEST_TIMER_MS && !options.notTimers?.includes(name)) {
      problems.push(`${name}: maximum ${variable.max} is longer than a timer takes`);
    }
  }
  return problems;
}

/**
 * The two checks every service's config spec runs against docs/configuration.md: the variables it reads (names,
 * defaults, documented bounds, switch words) and a bound on every duration. `notTimers`: durations that are ages
 * compared with a timestamp, never a timer's delay.
 */
export function describeConfigurationDoc(service: ServiceName, schema: ClassConstructor<object>, options: { notTimers?: readonly string[] } = {}): void {
  describe(`${service} config: docs/configuration.md`, () => {
    const required = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };

    it(`lists exactly the variables ${service} reads, with their defaults, documented bounds and switch words`, () => {
      expect(configurationDocProblems(service, schema, required)).toEqual([]);
    });

    it('bounds every duration, within what a timer takes', () => {
      expect(unboundedDurations(schema, options)).toEqual([]);
    });
  });
}
