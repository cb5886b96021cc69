import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { freePort } from './free-port.js';
import { assertPortFree, StartupError } from './startup-error.js';
import { OwnedChild } from './supervised.js';

export class InboxMissingError extends StartupError {
  override name = 'InboxMissingError';
  constructor() {
    super(
      'SMTP_URL is not set and the development inbox (the maildev package, a development dependency) is not ' +
        'installed: run npm ci with its development dependencies, or set SMTP_URL to an SMTP server (docs/email.md).',
    );
  }
}

export interface PrivateInboxOptions {
  /** Where the inbox keeps the messages it receives (they survive a restart). */
  dir: string;
  /** The web inbox's preferred port; another free one is used when it is taken. */
  webPort: number;
}

/** The `maildev` program of this checkout, or undefined when it is not installed. */
function maildevProgram(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('maildev/bin/maildev');
  } catch {
    return undefined;
  }
}

async function isFree(port: number): Promise<boolean> {
  try {
    await assertPortFree('EMAIL_INBOX_PORT', port, '127.0.0.1');
    return true;
  } catch {
    return false;
  }
}

/**
 * A private SMTP server with a web inbox (`maildev`), for `npm start` without SMTP_URL: every e-mail
 * the service sends lands there, readable in a browser. Loopback only; a child process that cannot
 * outlive this one, like the private redis-server.
 */
export class PrivateInbox {
  private readonly child = new OwnedChild();
  smtpPort = 0;
  webPort = 0;

  constructor(private readonly options: PrivateInboxOptions) {}

  get smtpUrl(): string {
    return `smtp://127.0.0.1:${this.smtpPort}`;
  }

  get webUrl(): string {
    return `http://localhost:${this.webPort}`;
  }

  async start(): Promise<void> {
    if (this.child.running) return;
    const program = maildevProgram();
    if (!program) throw new InboxMissingError();
    await mkdir(this.options.dir, { recursive: true });
    this.smtpPort = await freePort();
    this.webPort = (await isFree(this.options.webPort)) ? this.options.webPort : await freePort();
    const args = [
      program,
      '--smtp',
      String(this.smtpPort),
      '--web',
      String(this.webPort),
      '--ip',
      '127.0.0.1',
      '--web-ip',
      '127.0.0.1',
      '--mail-directory',
      this.options.dir,
    ];
    await this.child.start(
      { command: process.execPath, args, stopSignal: 'SIGTERM', graceMs: 5000 },
      (output) => output.includes('SMTP Server running') && output.includes('webapp running'),
      (code, output) =>
        new Error(`maildev exited with code ${String(code)} before it was ready: ${output.slice(-500)}`),
    );
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}
