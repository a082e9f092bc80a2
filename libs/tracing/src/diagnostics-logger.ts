import { DiagLogger, DiagLogLevel } from '@opentelemetry/api';
import pino, { DestinationStream, Logger } from 'pino';

/**
 * The OpenTelemetry SDK's own diagnostics as the service's JSON log lines. Without a logger the API drops them, so a
 * collector that was unreachable, refused every batch or was sent more spans than the queue holds went unnoticed:
 * traces were simply missing. The level is the standard OTEL_LOG_LEVEL (NONE, ERROR, WARN, INFO, DEBUG, VERBOSE,
 * ALL, any case), WARN when unset or unknown: the SDK's diagnostics above WARN are for debugging it, not for operators.
 */
export function diagnosticsLogger(service: string, env: NodeJS.ProcessEnv, destination?: DestinationStream): { logger: DiagLogger; level: DiagLogLevel } {
  const level = DIAG_LEVELS[env.OTEL_LOG_LEVEL?.trim().toUpperCase() ?? ''] ?? DiagLogLevel.WARN;
  const options = { base: { service, component: 'opentelemetry' }, level: pinoLevel(level) };
  const log: Logger = destination ? pino(options, destination) : pino(options);
  // The SDK passes a message and, at times, an error or a detail object: one line with the message, an error under
  // `err` (pino's serialiser keeps its type, message and stack), anything else under `details`.
  const fields = (args: unknown[]): object => {
    const [first] = args;
    if (args.length === 1 && first instanceof Error) {
      return { err: first };
    }
    return args.length === 0 ? {} : { details: args.length === 1 ? first : args };
  };
  const at =
    (write: (line: object, message: string) => void) =>
    (message: string, ...args: unknown[]): void =>
      write(fields(args), message);
  return {
    level,
    logger: {
      error: at((details, message) => log.error(details, message)),
      warn: at((details, message) => log.warn(details, message)),
      info: at((details, message) => log.info(details, message)),
      debug: at((details, message) => log.debug(details, message)),
      verbose: at((details, message) => log.trace(details, message)),
    },
  };
}

const DIAG_LEVELS: Readonly<Record<string, DiagLogLevel>> = {
  NONE: DiagLogLevel.NONE,
  ERROR: DiagLogLevel.ERROR,
  WARN: DiagLogLevel.WARN,
  INFO: DiagLogLevel.INFO,
  DEBUG: DiagLogLevel.DEBUG,
  VERBOSE: DiagLogLevel.VERBOSE,
  ALL: DiagLogLevel.ALL,
};

function pinoLevel(level: DiagLogLevel): pino.LevelWithSilent {
  if (level <= DiagLogLevel.NONE) return 'silent';
  if (level <= DiagLogLevel.ERROR) return 'error';
  if (level <= DiagLogLevel.WARN) return 'warn';
  if (level <= DiagLogLevel.INFO) return 'info';
  if (level <= DiagLogLevel.DEBUG) return 'debug';
  return 'trace';
}
