import path from 'node:path';
import { pino, type DestinationStream } from 'pino';
import type { Config } from '../../src/shared/config.js';
import { createLogger, type Logger } from '../../src/shared/logger.js';

/**
 * Every log line the suite's in-process services write, at debug level, goes to one file of the run's
 * world (unless TEST_LOG_LEVEL asks to see them on stdout): test/logs/secrets.test.ts then searches it
 * for every credential, secret and buyer datum the suite used.
 */
let file: string | undefined;
let destination: DestinationStream | undefined;

export function captureLogsIn(dir: string): void {
  file = path.join(dir, 'service.log');
  destination = pino.destination({ dest: file, sync: true, append: true });
}

export const capturedLogFile = (): string | undefined => file;

export function testLogger(config: Config, name?: string): Logger {
  if (process.env.TEST_LOG_LEVEL || !destination) return createLogger(config.logLevel, name);
  return createLogger('debug', name, 1, destination);
}
