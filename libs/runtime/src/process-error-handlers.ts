import pino from 'pino';

/** What the handlers log through (pino's `error` and `fatal`). */
export interface ProcessErrorLogger {
  error(object: object, message: string): void;
  fatal(object: object, message: string): void;
}

let installed = false;

/**
 * Process-level error policy of every service: an unhandled promise rejection is logged and the process goes
 * on (Node's default ends it, so one forgotten `catch` in a background path took a whole replica and every job
 * it held down with it); an uncaught exception is logged and ends the process, since the state it leaves
 * behind is unknown and the orchestrator restarts it. Installed once per process.
 */
export function installProcessErrorHandlers(service: string, logger: ProcessErrorLogger = pino({ base: { service } })): void {
  if (installed) {
    return;
  }
  installed = true;
  process.on('unhandledRejection', (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled promise rejection; the process keeps running (a missing catch to fix)');
  });
  process.on('uncaughtException', (error: Error, origin: string) => {
    logger.fatal({ err: error, origin }, 'uncaught exception; exiting');
    process.exit(1);
  });
}
