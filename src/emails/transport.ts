/**
 * The SMTP hand-off (nodemailer, to SMTP_URL). The URL carries the password: it is read here and
 * nowhere else, and only its host and port are ever written to a log.
 */
import { createTransport } from 'nodemailer';
import type { NodemailerError } from 'nodemailer/lib/errors';
import { ConfigError, type Config } from '../shared/config.js';
import type { Attachment } from './templates.js';

/** One message as it leaves: a single recipient, every header value already one line. */
export interface Outgoing {
  messageId: string;
  from: { name: string; address: string };
  to: string;
  replyTo: string | null;
  subject: string;
  text: string;
  html: string;
  attachments: Attachment[];
  headers: Record<string, string>;
}

export interface Mailer {
  /** Resolves with the server's answer to the message (`250 …`); rejects with what went wrong. */
  send(message: Outgoing): Promise<string>;
  close(): void;
}

/** `smtp://host:587` for a log line: never the user or the password. */
export function describeSmtp(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.hostname}:${parsed.port || (parsed.protocol === 'smtps:' ? '465' : '587')}`;
}

/** The mailer of a worker process; refuses to exist without SMTP_URL (none was configured or started). */
export function createMailer(config: Config): Mailer {
  const url = config.email.smtpUrl;
  if (!url)
    throw new ConfigError(
      'Invalid configuration:\n  SMTP_URL: is required to send e-mail to buyers (smtp:// or smtps://, see docs/email.md)',
    );
  // One connection per message: a process sends few at once (EMAIL_CONCURRENCY), and a message never
  // waits behind another's slow server answer on a shared connection.
  const transport = createTransport({
    url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    logger: false,
    debug: false,
  });
  return {
    async send(message) {
      const info = await transport.sendMail({
        messageId: message.messageId,
        from: message.from,
        to: { name: '', address: message.to },
        ...(message.replyTo ? { replyTo: message.replyTo } : {}),
        subject: message.subject,
        text: message.text,
        html: message.html,
        attachments: message.attachments,
        headers: message.headers,
        // One envelope recipient, whatever the headers say: nothing can add a second one.
        envelope: { from: config.email.from, to: [message.to] },
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      return String(info.response ?? '');
    },
    close: () => transport.close(),
  };
}

/** What an SMTP failure means for the message. */
export type SmtpFailure =
  /** The server refused the recipient or the message for good: never retried. */
  | { kind: 'bounced'; detail: string }
  /** Anything else (down, slow, 4xx, credentials refused): retried. `unknown` when the message may have gone. */
  | { kind: 'retry'; detail: string; unknown: boolean };

export function classifySmtpError(err: unknown): SmtpFailure {
  const failure = err as NodemailerError;
  const code = failure.responseCode;
  const detail = [failure.command, code, failure.code].filter((p) => p !== undefined).join(' ') || 'error';
  const authentication = failure.code === 'EAUTH' || (failure.command ?? '').startsWith('AUTH');
  if (failure.permanent === true && !authentication) return { kind: 'bounced', detail };
  // A connection lost after the message's end was sent, before the server's answer to it.
  const unknown = code === undefined && failure.command !== undefined && /DATA|^\.$/.test(failure.command);
  return { kind: 'retry', detail, unknown };
}
