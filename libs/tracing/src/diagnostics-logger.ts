import { DiagLogger, DiagLogLevel } from '@opentelemetry/api';
import pino, { DestinationStream, Logger } from 'pino';

/**
 * The OpenTelemetry SDK's own diagnostics as the service's JSON log lines. Without a logger the API drops them, so a
 * collector that was unreachable, refused every batch or was sent more spans than the queue holds went unnoticed:
 * traces were simply missing. The level is the standard OTEL_LOG_LEVEL (NONE, ERROR, WARN, INFO, DEBUG, VERBOSE,
 * ALL, any case), WARN when unset or unknown: the SDK's diagnostics above WARN are for debugging it, not for operators.
 *
 * The SDK's errors are written as warnings (`sdkLevel: "error"`): what fails is the delivery of traces, never the
 * service's own work, and an operator's error alerts (and the tests that read a service's log for errors) are about
 * that work. A collector that is down fails every batch, every few seconds, in every service: one message is written
 * at most once per `REPEAT_MS`, the next line saying how many were left out (`repeated`).
 */
export function diagnosticsLogger(
  service: string,
  env: NodeJS.ProcessEnv,
  destination?: DestinationStream,
  now: () => number = Date.now,
): { logger: DiagLogger; level: DiagLogLevel } {
  const level = DIAG_LEVELS[env.OTEL_LOG_LEVEL?.trim().toUpperCase() ?? ''] ?? DiagLogLevel.WARN;
  // Filtered here by the SDK's levels, not by pino's: an SDK error is written as a warning, and OTEL_LOG_LEVEL=ERROR
  // must still let it through.
  const options = { base: { service, component: 'opentelemetry' }, level: 'trace' };
  const log: Logger = destination ? pino(options, destination) : pino(options);
  const written = new Map<string, { at: number; left: number }>();
  // The SDK passes a message and, at times, an error or a detail object: one line with the message, an error under
  // `err` (pino's serialiser keeps its type, message and stack), anything else under `details`.
  const fields = (args: unknown[]): Record<string, unknown> => {
    const [first] = args;
    if (args.length === 1 && first instanceof Error) {
      return { err: first };
    }
    return args.length === 0 ? {} : { details: args.length === 1 ? first : args };
  };
  const at =
    (threshold: DiagLogLevel, write: (line: object, message: string) => void) =>
    (message: string, ...args: unknown[]): void => {
      if (threshold > level) {
        return;
      }
      const last = written.get(message);
      if (last && now() - last.at < REPEAT_MS) {
        last.left += 1;
        return;
      }
      if (written.size >= REMEMBERED_MESSAGES) {
        written.clear();
      }
      written.set(message, { at: now(), left: 0 });
      write({ ...fields(args), ...(last?.left ? { repeated: last.left } : {}) }, message);
    };
  return {
    level,
    logger: {
      error: at(DiagLogLevel.ERROR, (line, message) => log.warn({ ...line, sdkLevel: 'error' }, message)),
      warn: at(DiagLogLevel.WARN, (line, message) => log.warn(line, message)),
      info: at(DiagLogLevel.INFO, (line, message) => log.info(line, message)),
      debug: at(DiagLogLevel.DEBUG, (line, message) => log.debug(line, message)),
      verbose: at(DiagLogLevel.VERBOSE, (line, message) => log.trace(line, message)),
    },
  };
}

/** The same diagnostic message is written at most once per minute. */
export const REPEAT_MS = 60_000;
/** Messages remembered for that (the SDK's are few; a flood of distinct ones starts the count again). */
const REMEMBERED_MESSAGES = 100;

const DIAG_LEVELS: Readonly<Record<string, DiagLogLevel>> = {
  NONE: DiagLogLevel.NONE,
  ERROR: DiagLogLevel.ERROR,
  WARN: DiagLogLevel.WARN,
  INFO: DiagLogLevel.INFO,
  DEBUG: DiagLogLevel.DEBUG,
  VERBOSE: DiagLogLevel.VERBOSE,
  ALL: DiagLogLevel.ALL,
};
