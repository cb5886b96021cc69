/** Every statement about buyer e-mail: settings, the relay's claim, messages, unsubscribes. */
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { schema, type Executor } from '../shared/db/index.js';
import { type MessageKind, type EmailState, type MessageData, type PlannedMessage } from './kinds.js';

const { emailSettings, emailMessages, emailUnsubscribes, orders } = schema;

export type SettingsRow = typeof emailSettings.$inferSelect;
export type MessageRow = typeof emailMessages.$inferSelect;

export async function findSettings(db: Executor, companyId: number): Promise<SettingsRow | undefined> {
  const [row] = await db.select().from(emailSettings).where(eq(emailSettings.companyId, companyId));
  return row;
}

/** Writes the given settings (the others keep their value, or their default on a first write). */
export async function saveSettings(
  db: Executor,
  companyId: number,
  values: Partial<Omit<SettingsRow, 'companyId' | 'updatedAt'>>,
): Promise<SettingsRow> {
  const [row] = await db
    .insert(emailSettings)
    .values({ companyId, ...values })
    .onConflictDoUpdate({
      target: emailSettings.companyId,
      set: { ...values, updatedAt: sql`clock_timestamp()` },
    })
    .returning();
  if (!row) throw new Error('email settings upsert returned no row');
  return row;
}

/**
 * The event kinds that mail a buyer, as the partial index of migration 0951 lists them: written out
 * here (bound values would not let the planner match the index's predicate).
 */
const EMAILED = sql`type IN ('order.created', 'order.paid', 'order.refunded', 'order.abandoned',
  'subscription.created', 'subscription.renewed', 'subscription.past_due', 'subscription.canceled',
  'invoice.issued')`;
// The list above, the index's and EMAILED_EVENT_KINDS agree: test/unit/email-kinds.test.ts reads all three.

/** Of these events, the live ones of an e-mailed kind whose e-mails are not queued yet (one lookup each). */
export async function eventsAwaitingEmails(db: Executor, eventIds: string[]): Promise<string[]> {
  const result = await db.execute<{ id: string }>(sql`
    SELECT id FROM events
     WHERE id = ANY(${sql.param(eventIds)}::text[])
       AND emails_at IS NULL AND livemode AND NOT test AND ${EMAILED}`);
  return result.rows.map((r) => r.id);
}

export interface ClaimedEvent {
  id: string;
  companyId: number;
  type: string;
  createdAt: Date;
  payload: { data?: Record<string, unknown> };
}

/**
 * Claims events for the e-mail relay, in the caller's transaction: the messages it writes commit
 * with the claim, so an event's e-mails are queued once, whichever relay or sweep gets there first.
 */
export async function claimEvents(tx: Executor, eventIds: string[]): Promise<ClaimedEvent[]> {
  const result = await tx.execute<{
    id: string;
    company_id: string | number;
    type: string;
    created_at: string | Date;
    payload: ClaimedEvent['payload'];
  }>(sql`
    UPDATE events SET emails_at = clock_timestamp()
     WHERE id = ANY(${sql.param(eventIds)}::text[])
       AND emails_at IS NULL AND livemode AND NOT test AND ${EMAILED}
 RETURNING id, company_id, type, created_at, payload`);
  return result.rows
    .map((r) => ({
      id: r.id,
      companyId: Number(r.company_id),
      type: r.type,
      createdAt: new Date(r.created_at),
      payload: r.payload,
    }))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
}

/** Live events of an e-mailed kind, older than `graceMs`, whose e-mails no relay queued (the sweep). */
export async function eventsMissedByRelay(db: Executor, graceMs: number, limit: number): Promise<string[]> {
  const result = await db.execute<{ id: string }>(sql`
    SELECT id FROM events
     WHERE emails_at IS NULL AND livemode AND NOT test AND ${EMAILED}
       AND created_at < clock_timestamp() - make_interval(secs => ${graceMs / 1000})
     ORDER BY seq LIMIT ${limit}`);
  return result.rows.map((r) => r.id);
}

/** What the relay and the sender need to know about an order beyond its event. */
export interface OrderFacts {
  status: string;
  language: 'pt-BR' | 'en' | null;
  recoveryConsent: boolean;
  subscriptionId: number | null;
  /** A renewal of a subscription (not the purchase that started it). */
  renewal: boolean;
}

export async function orderFacts(db: Executor, code: string): Promise<OrderFacts | undefined> {
  const result = await db.execute<{
    status: string;
    language: 'pt-BR' | 'en' | null;
    recovery_consent: boolean;
    subscription_id: string | number | null;
    renewal: boolean;
  }>(sql`
    SELECT o.status, o.language, o.recovery_consent, o.subscription_id,
           EXISTS (SELECT 1 FROM orders f WHERE f.subscription_id = o.subscription_id AND f.id < o.id) AS renewal
      FROM orders o WHERE o.code = ${code}`);
  const row = result.rows[0];
  return (
    row && {
      status: row.status,
      language: row.language,
      recoveryConsent: row.recovery_consent,
      subscriptionId: row.subscription_id === null ? null : Number(row.subscription_id),
      renewal: row.renewal,
    }
  );
}

/** A subscription's orders that matter to its messages: the first (its language) and the latest of a status. */
export async function subscriptionOrder(
  db: Executor,
  subscriptionId: number,
  which: { first: true } | { latest: 'paid' | 'failed' },
): Promise<typeof orders.$inferSelect | undefined> {
  const [row] = await db
    .select()
    .from(orders)
    .where(
      'first' in which
        ? eq(orders.subscriptionId, subscriptionId)
        : and(eq(orders.subscriptionId, subscriptionId), eq(orders.status, which.latest)),
    )
    .orderBy('first' in which ? orders.id : desc(orders.id))
    .limit(1);
  return row;
}

/** Whether the address asked this company for no more recovery messages. */
export async function isUnsubscribed(db: Executor, companyId: number, email: string): Promise<boolean> {
  const [row] = await db
    .select({ email: emailUnsubscribes.email })
    .from(emailUnsubscribes)
    .where(and(eq(emailUnsubscribes.companyId, companyId), eq(emailUnsubscribes.email, email.toLowerCase())));
  return row !== undefined;
}

export async function unsubscribe(db: Executor, companyId: number, email: string): Promise<void> {
  await db.insert(emailUnsubscribes).values({ companyId, email: email.toLowerCase() }).onConflictDoNothing();
}

/** Whether a recovery message to this address was queued by this company within `days`. */
export async function recoveredRecently(
  db: Executor,
  companyId: number,
  email: string,
  days: number,
): Promise<boolean> {
  const result = await db.execute<{ found: boolean }>(sql`
    SELECT EXISTS (SELECT 1 FROM email_messages
                    WHERE company_id = ${companyId} AND kind = 'recovery' AND lower(recipient) = ${email.toLowerCase()}
                      AND created_at > clock_timestamp() - make_interval(days => ${days})) AS found`);
  return result.rows[0]?.found ?? false;
}

/** Writes planned messages (a message already written for its event, kind and recipient is left). */
export async function insertMessages(
  tx: Executor,
  planned: Array<PlannedMessage & { token: string; messageId: string }>,
): Promise<Array<{ id: number; kind: MessageKind; sendAt: Date }>> {
  if (planned.length === 0) return [];
  return tx
    .insert(emailMessages)
    .values(
      planned.map((m) => ({
        companyId: m.companyId,
        eventId: m.eventId,
        kind: m.kind,
        recipient: m.recipient,
        language: m.language,
        orderCode: m.orderCode,
        subscriptionId: m.subscriptionId,
        data: { ...m.data },
        token: m.token,
        messageId: m.messageId,
        sendAt: m.sendAt,
      })),
    )
    .onConflictDoNothing()
    .returning({ id: emailMessages.id, kind: emailMessages.kind, sendAt: emailMessages.sendAt });
}

/** What a message says, as the relay wrote it (`MessageData`, stored as jsonb). */
export const messageData = (row: Pick<MessageRow, 'data'>): MessageData => row.data as MessageData;

export async function lockMessage(tx: Executor, id: number): Promise<MessageRow | undefined> {
  const [row] = await tx.select().from(emailMessages).where(eq(emailMessages.id, id)).for('update');
  return row;
}

export async function findMessageByToken(db: Executor, token: string): Promise<MessageRow | undefined> {
  const [row] = await db.select().from(emailMessages).where(eq(emailMessages.token, token));
  return row;
}

/** Whether `at` has come by PostgreSQL's clock (the clock every deadline is kept in). */
export async function databaseNow(db: Executor): Promise<Date> {
  const result = await db.execute<{ now: string | Date }>(sql`SELECT clock_timestamp() AS now`);
  return new Date(result.rows[0]?.now ?? Date.now());
}

/**
 * The per-company hourly limit, in the caller's transaction: serialised per company (an advisory lock
 * held to commit), it counts the company's other messages attempted in the last hour; when the
 * limit is reached, answers when the oldest of them leaves the window.
 */
export async function nextFreeSlot(
  tx: Executor,
  companyId: number,
  messageId: number,
  perHour: number,
): Promise<Date | undefined> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(4820, ${companyId}::int)`);
  const result = await tx.execute<{ n: number; oldest: string | Date | null }>(sql`
    SELECT count(*)::int AS n, min(attempted_at) AS oldest FROM (
      SELECT attempted_at FROM email_messages
       WHERE company_id = ${companyId} AND id <> ${messageId}
         AND attempted_at > clock_timestamp() - interval '1 hour'
       ORDER BY attempted_at DESC LIMIT ${perHour}) recent`);
  const row = result.rows[0];
  if (!row || row.n < perHour || row.oldest === null) return undefined;
  return new Date(new Date(row.oldest).getTime() + 3_600_000);
}

/** Moves a locked message on; `attempt` stamps a new hand-off to SMTP. */
export async function updateMessage(
  tx: Executor,
  id: number,
  change: {
    state: EmailState;
    attempt?: boolean;
    sentAt?: boolean;
    smtpResponse?: string | null;
    lastError?: string | null;
    /** What the message says, rewritten (a sign-in message forgets its link once sent). */
    data?: object;
  },
): Promise<void> {
  await tx
    .update(emailMessages)
    .set({
      state: change.state,
      ...(change.attempt
        ? { attempts: sql`${emailMessages.attempts} + 1`, attemptedAt: sql`clock_timestamp()` }
        : {}),
      ...(change.sentAt ? { sentAt: sql`clock_timestamp()` } : {}),
      ...(change.smtpResponse !== undefined ? { smtpResponse: change.smtpResponse } : {}),
      ...(change.lastError !== undefined ? { lastError: change.lastError } : {}),
      ...(change.data !== undefined ? { data: change.data } : {}),
      updatedAt: sql`clock_timestamp()`,
    })
    .where(eq(emailMessages.id, id));
}

/** Messages due more than `graceMs` ago and still waiting: their job may have been lost (the sweep). */
export async function waitingMessages(
  db: Executor,
  graceMs: number,
  limit: number,
): Promise<Array<{ id: number; kind: MessageKind }>> {
  const result = await db.execute<{ id: string | number; kind: MessageKind }>(sql`
    SELECT id, kind FROM email_messages
     WHERE state IN ('queued', 'sending')
       AND send_at < clock_timestamp() - make_interval(secs => ${graceMs / 1000})
     ORDER BY send_at LIMIT ${limit}`);
  return result.rows.map((r) => ({ id: Number(r.id), kind: r.kind }));
}

/** An order's messages as the panel lists them (skipped ones left out), oldest first, per order code. */
export async function messagesOfOrders(
  db: Executor,
  companyId: number,
  codes: string[],
): Promise<Array<Pick<MessageRow, 'orderCode' | 'kind' | 'recipient' | 'state' | 'sentAt'>>> {
  if (codes.length === 0) return [];
  return db
    .select({
      orderCode: emailMessages.orderCode,
      kind: emailMessages.kind,
      recipient: emailMessages.recipient,
      state: emailMessages.state,
      sentAt: emailMessages.sentAt,
    })
    .from(emailMessages)
    .where(
      and(
        eq(emailMessages.companyId, companyId),
        inArray(emailMessages.orderCode, codes),
        sql`${emailMessages.state} <> 'skipped'`,
      ),
    )
    .orderBy(emailMessages.id);
}

/** The order's issued service invoice (order_invoices, migration 0950): its number and PDF, if any. */
export async function issuedInvoiceOf(
  db: Executor,
  companyId: number,
  orderCode: string,
): Promise<{ number: string | null; pdfUrl: string } | undefined> {
  const result = await db.execute<{ number: string | null; pdf_url: string }>(sql`
    SELECT number, pdf_url FROM order_invoices
     WHERE company_id = ${companyId} AND order_code = ${orderCode} AND status = 'issued'
       AND pdf_url ~* '^https?://'`);
  const row = result.rows[0];
  return row && { number: row.number, pdfUrl: row.pdf_url };
}

/** Whether another receipt of the order went out (or is going) with its invoice's PDF already. */
export async function receiptCarriedInvoice(
  db: Executor,
  companyId: number,
  orderCode: string,
  exceptId: number,
): Promise<boolean> {
  const result = await db.execute<{ found: boolean }>(sql`
    SELECT EXISTS (SELECT 1 FROM email_messages
                    WHERE company_id = ${companyId} AND order_code = ${orderCode} AND kind = 'receipt'
                      AND id <> ${exceptId} AND state IN ('sending', 'sent')
                      AND data -> 'invoice' ->> 'pdfUrl' IS NOT NULL) AS found`);
  return result.rows[0]?.found ?? false;
}
