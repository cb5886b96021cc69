import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerAddress, type SMTPServerOptions } from 'smtp-server';
import { randomBase62 } from '../../src/shared/ids.js';

/** A message as it arrived: the SMTP envelope, the raw bytes and what `mailparser` reads in them. */
export interface ArrivedMail {
  envelope: { from: string; to: string[] };
  raw: string;
  parsed: ParsedMail;
  /** The authenticated SMTP user that sent it (null without authentication). */
  user: string | null;
  secure: boolean;
}

export interface TestSmtpOptions {
  /** Require this user and password (PLAIN/LOGIN); without it, no authentication is offered. */
  auth?: { user: string; pass: string };
  /** `smtps://`: TLS from the first byte (smtp-server's own self-signed certificate). */
  secure?: boolean;
  /** Offer STARTTLS on a plain connection (default true). */
  startTls?: boolean;
  /** Keep and parse every message (default true); a load tool's sink only counts them. */
  keep?: boolean;
}

/**
 * A real SMTP server on loopback (`smtp-server`, the server half of nodemailer's project) that
 * keeps what it receives and parses each message with `mailparser`, as a mailbox would. A recipient
 * in `refuse` is answered with a permanent 550 at RCPT TO, one in `defer` with a 451.
 */
export class TestSmtp {
  readonly mails: ArrivedMail[] = [];
  readonly refuse = new Set<string>();
  readonly defer = new Set<string>();
  /** Connections opened, and messages received (kept or not). */
  connections = 0;
  received = 0;
  private server: SMTPServer | undefined;
  private port = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly options: TestSmtpOptions = {}) {}

  async start(): Promise<this> {
    const { auth, secure = false, startTls = true } = this.options;
    const settings: SMTPServerOptions = {
      secure,
      hideSTARTTLS: !startTls,
      authOptional: auth === undefined,
      disabledCommands: auth === undefined ? ['AUTH'] : [],
      allowInsecureAuth: false,
      logger: false,
      size: 10 * 1024 * 1024,
      onConnect: (_session, callback) => {
        this.connections += 1;
        callback();
      },
      onAuth: (login, _session, callback) => {
        if (auth && login.username === auth.user && login.password === auth.pass)
          callback(null, { user: login.username });
        else callback(new Error('Invalid username or password'));
      },
      onRcptTo: (address: SMTPServerAddress, _session, callback) => {
        const to = address.address.toLowerCase();
        if (this.refuse.has(to))
          callback(Object.assign(new Error('5.1.1 No such user here'), { responseCode: 550 }));
        else if (this.defer.has(to))
          callback(Object.assign(new Error('4.2.1 Mailbox busy, try later'), { responseCode: 451 }));
        else callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          this.received += 1;
          if (this.options.keep === false) {
            callback();
            return;
          }
          const raw = Buffer.concat(chunks).toString('utf8');
          simpleParser(raw, { keepCidLinks: true }).then(
            (parsed) => {
              this.mails.push({
                envelope: {
                  from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                  to: session.envelope.rcptTo.map((r) => r.address),
                },
                raw,
                parsed,
                user: typeof session.user === 'string' ? session.user : null,
                secure: session.secure,
              });
              for (const wake of this.waiters.splice(0)) wake();
              callback();
            },
            (err: Error) => callback(err),
          );
        });
      },
    };
    this.server = new SMTPServer(settings);
    this.server.on('error', () => undefined);
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', () => resolve()));
    const address = this.server.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return this;
  }

  /** The nodemailer URL of this server (its self-signed certificate accepted: loopback only). */
  get url(): string {
    const { auth, secure = false } = this.options;
    const credentials = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@` : '';
    return `${secure ? 'smtps' : 'smtp'}://${credentials}127.0.0.1:${this.port}/?tls.rejectUnauthorized=false`;
  }

  /** Every message that arrived for `address` so far. */
  to(address: string): ArrivedMail[] {
    const wanted = address.toLowerCase();
    return this.mails.filter((m) => m.envelope.to.some((to) => to.toLowerCase() === wanted));
  }

  /** Resolves once `count` messages arrived for `address`; rejects after `timeoutMs`. */
  async waitFor(address: string, count = 1, timeoutMs = 15_000): Promise<ArrivedMail[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.to(address).length < count) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `${this.to(address).length} of ${count} e-mails arrived for ${address} in ${timeoutMs} ms`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.to(address);
  }

  async close(): Promise<void> {
    for (const wake of this.waiters.splice(0)) wake();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A buyer address of its own for one test (every test reads only its own mail). */
export const buyerAddress = (name = 'buyer'): string =>
  `${name}-${randomBase62(10).toLowerCase()}@example.com`;
