import { ConfigValidationError } from '@cp/config';
import { DURABLES, deadlineVariableOf, JOB_DEADLINE_MAX_MS, JOB_DEADLINE_MIN_MS, JOB_DEADLINE_VARIABLE_PREFIX, parseJobDeadlineMs } from '@cp/contracts';

/** How many known names an unknown `JOB_DEADLINE_MS_…` variable's error suggests. */
const SUGGESTIONS = 3;

/** Levenshtein distance (insertions, deletions, substitutions), for the names an error suggests. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/** The known variables nearest to `name`, nearest first (ties in the list's order). */
export function nearestDeadlineVariables(name: string, known: readonly string[] = DURABLES.map(deadlineVariableOf)): string[] {
  return known
    .map((candidate, index) => ({ candidate, index, distance: editDistance(name, candidate) }))
    .sort((a, b) => a.distance - b.distance || a.index - b.index)
    .slice(0, SUGGESTIONS)
    .map((entry) => entry.candidate);
}

/**
 * What is wrong with the `JOB_DEADLINE_MS_<DURABLE>` variables of an environment: each must name a declared durable
 * (`DURABLES` of `@cp/contracts`, every service's: the Helm chart may give all services one environment, so a
 * variable of another service's consumer is valid here and read there) and hold a whole number of milliseconds in
 * bounds. The consumer reads only its own (`@cp/messaging`), so without this check a misspelt name did nothing and
 * nobody was told. Blank values are unset, as everywhere in the configuration. Values are never echoed.
 */
export function deadlineVariableErrors(env: NodeJS.ProcessEnv): { variables: string[]; details: string[] } {
  const known = DURABLES.map(deadlineVariableOf);
  const variables: string[] = [];
  const details: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(JOB_DEADLINE_VARIABLE_PREFIX) || value === undefined || value.trim() === '') {
      continue;
    }
    if (!known.includes(name)) {
      variables.push(name);
      details.push(`${name}: no consumer is named so (JOB_DEADLINE_MS_<DURABLE>); nearest: ${nearestDeadlineVariables(name, known).join(', ')}`);
    } else if (parseJobDeadlineMs(value) === null) {
      variables.push(name);
      details.push(`${name}: must be a whole number of milliseconds from ${JOB_DEADLINE_MIN_MS} to ${JOB_DEADLINE_MAX_MS}`);
    }
  }
  return { variables, details };
}

/**
 * A service's configuration as its loader reads it, with the `JOB_DEADLINE_MS_<DURABLE>` variables checked too
 * (`deadlineVariableErrors`): `runService` loads every service's configuration through it, so a misspelt deadline
 * stops the start as a wrong variable of the service's own class does. Both kinds of error come in one
 * `ConfigValidationError`. (Here, not in `validateEnv`: @cp/config cannot depend on @cp/contracts.)
 */
export function loadServiceConfig<TConfig>(load: () => TConfig, env: NodeJS.ProcessEnv = process.env): TConfig {
  const deadlines = deadlineVariableErrors(env);
  let config: TConfig;
  try {
    config = load();
  } catch (error) {
    if (error instanceof ConfigValidationError && deadlines.variables.length > 0) {
      throw new ConfigValidationError([...error.variables, ...deadlines.variables], [...error.details, ...deadlines.details]);
    }
    throw error;
  }
  if (deadlines.variables.length > 0) {
    throw new ConfigValidationError(deadlines.variables, deadlines.details);
  }
  return config;
}
