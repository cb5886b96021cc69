/** A company's e-mail settings: who the messages come from, where replies go, which are sent. */
import { findCompany, findOwner } from '../companies/repository.js';
import type { Executor } from '../shared/db/index.js';
import { NotFoundError } from '../shared/errors.js';
import { EMAIL_KINDS, type EmailKind } from './kinds.js';
import { findSettings, saveSettings, type SettingsRow } from './repository.js';
import type { EmailSettingsInput } from './schemas.js';

/** The settings as the panel shows them: the defaults filled in where the company set nothing. */
export interface EmailSettings {
  senderName: string;
  /** Whether the company chose its sender name (false: it is the company's name). */
  senderNameSet: boolean;
  /** Null: the e-mail of the company's first owner (see `replyAddress`). */
  replyTo: string | null;
  messages: Record<EmailKind, boolean>;
}

const COLUMN: Record<EmailKind, keyof SettingsRow & string> = {
  instructions: 'instructions',
  reminder: 'reminder',
  receipt: 'receipt',
  refund: 'refund',
  renewal_notice: 'renewalNotice',
  renewal_failed: 'renewalFailed',
  canceled: 'canceled',
  recovery: 'recovery',
};

/** Every message on, but the recovery message, which a seller turns on (it is marketing). */
export const DEFAULT_MESSAGES: Record<EmailKind, boolean> = Object.fromEntries(
  EMAIL_KINDS.map((kind) => [kind, kind !== 'recovery']),
) as Record<EmailKind, boolean>;

function settingsOf(companyName: string, row: SettingsRow | undefined): EmailSettings {
  return {
    senderName: row?.senderName ?? companyName,
    senderNameSet: typeof row?.senderName === 'string',
    replyTo: row?.replyTo ?? null,
    messages: row
      ? (Object.fromEntries(EMAIL_KINDS.map((kind) => [kind, row[COLUMN[kind]] === true])) as Record<
          EmailKind,
          boolean
        >)
      : { ...DEFAULT_MESSAGES },
  };
}

export async function getEmailSettings(db: Executor, companyId: number): Promise<EmailSettings> {
  // One after the other: `db` may be a transaction's one client, which runs one query at a time.
  const company = await findCompany(db, companyId);
  if (!company) throw new NotFoundError(`No company ${companyId}`);
  return settingsOf(company.name, await findSettings(db, companyId));
}

export async function updateEmailSettings(
  db: Executor,
  companyId: number,
  input: EmailSettingsInput,
): Promise<EmailSettings> {
  const company = await findCompany(db, companyId);
  if (!company) throw new NotFoundError(`No company ${companyId}`);
  const toggles = Object.entries(input.messages ?? {}).map(([kind, on]) => [COLUMN[kind as EmailKind], on]);
  const row = await saveSettings(db, companyId, {
    ...(input.sender_name !== undefined ? { senderName: input.sender_name } : {}),
    ...(input.reply_to !== undefined ? { replyTo: input.reply_to } : {}),
    ...Object.fromEntries(toggles),
  });
  return settingsOf(company.name, row);
}

/** Who a company's messages are from and what they print about the seller, as of now. */
export interface Seller {
  companyName: string;
  senderName: string;
  /** Where a buyer's reply goes; null when the company set none and has no owner with an address. */
  replyTo: string | null;
  cnpj: string | null;
  messages: Record<EmailKind, boolean>;
  /** The settings as the panel shows them. */
  settings: EmailSettings;
}

export async function sellerOf(db: Executor, companyId: number): Promise<Seller | undefined> {
  // One after the other: the outbox relay and the sender read it in a transaction, whose one client
  // runs one query at a time (side by side, pg queues them and warns that it will refuse it).
  const company = await findCompany(db, companyId);
  if (!company) return undefined;
  const row = await findSettings(db, companyId);
  const owner = await findOwner(db, companyId);
  const settings = settingsOf(company.name, row);
  return {
    companyName: company.name,
    senderName: settings.senderName,
    replyTo: settings.replyTo ?? owner?.email ?? null,
    cnpj: company.cnpj,
    messages: settings.messages,
    settings,
  };
}
