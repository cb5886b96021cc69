import { safeError, type Logger } from './logger.js';

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits. A second signal exits at once.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight work');
    stop()
      .then(() => {
        logger.info('shutdown complete');
        process.exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/**
 * The last resort, for what no code path handled. A store outage surfacing here (a fire-and-forget
 * write, a library's background reconnect) is logged and survived: the process serves 503s and
 * recovers by itself. Anything else is a bug of unknown reach: it is logged and the process stops
 * through the same clean shutdown as a signal, so the supervisor restarts it.
 */
export function onUnexpectedError(
  logger: Logger,
  stop: () => Promise<void>,
  isTransient: (err: unknown) => boolean,
): void {
  let stopping = false;
  const handle = (kind: string) => (err: unknown) => {
    if (isTransient(err)) {
      logger.warn({ err: safeError(err) }, `${kind}: a store is unavailable; carrying on`);
      return;
    }
    logger.fatal({ err: safeError(err) }, `${kind}: stopping`);
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    stop()
      .catch(() => undefined)
      .finally(() => process.exit(1));
  };
  process.on('unhandledRejection', handle('unhandled rejection'));
  process.on('uncaughtException', handle('uncaught exception'));
}
