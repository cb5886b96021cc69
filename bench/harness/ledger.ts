import type pg from 'pg';
import { pairKey, type WebhookReceiver } from './receiver.js';
import { percentile, sleep } from './util.js';

/** A webhook integration the harness created, with the kinds it subscribed to. */
export interface IntegrationRef {
  id: number;
  companyId: number;
  events: string[];
}

interface EventRow {
  id: string;
  company_id: string;
  type: string;
  created_ms: number;
}

export interface Check {
  events: number;
  /** (event, integration) pairs that routing promises (docs/api.md, "Who receives an event"). */
  expected: number;
  delivered: number;
  /** Arrivals beyond the first of a pair (at-least-once delivery allows them; counted apart). */
  duplicates: number;
  lost: number;
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  unrelayed: number;
  pendingDeliveries: number;
  /** A few lost pairs with what PostgreSQL says about them. */
  lostSamples: string[];
}

/**
 * What must have reached the receiver, from PostgreSQL's `events` (the outbox, the system of record)
 * and the harness's own integrations, computed without the service's fan-out: every active webhook
 * integration of the event's company subscribed to its kind (a declined payment also reaches
 * `order.failed` subscribers); all of them send to all products, so the product filter is moot.
 */
export class Ledger {
  private readonly byCompany = new Map<number, IntegrationRef[]>();

  constructor(
    private readonly db: pg.Pool,
    private readonly receiver: WebhookReceiver,
    integrations: IntegrationRef[],
  ) {
    for (const i of integrations) {
      const list = this.byCompany.get(i.companyId) ?? [];
      list.push(i);
      this.byCompany.set(i.companyId, list);
    }
  }

  private routes(event: EventRow): IntegrationRef[] {
    const kinds = event.type === 'order.payment_declined' ? [event.type, 'order.failed'] : [event.type];
    return (this.byCompany.get(Number(event.company_id)) ?? []).filter((i) =>
      i.events.some((k) => kinds.includes(k)),
    );
  }

  /** Every event id committed so far. */
  async eventIds(): Promise<Set<string>> {
    const { rows } = await this.db.query<{ id: string }>('SELECT id FROM events');
    return new Set(rows.map((r) => r.id));
  }

  /** Events committed and (event, integration) pairs expected so far: cheap enough for progress lines. */
  async counts(): Promise<{ events: number; expected: number }> {
    const { rows } = await this.db.query<{ events: string; expected: string }>(
      `SELECT (SELECT count(*) FROM events) AS events,
              (SELECT count(*) FROM events e JOIN integrations i ON i.company_id = e.company_id
                WHERE i.id = ANY($1::int[])
                  AND (e.type = ANY(i.events) OR (e.type = 'order.payment_declined' AND 'order.failed' = ANY(i.events)))) AS expected`,
      [[...this.byCompany.values()].flat().map((i) => i.id)],
    );
    return { events: Number(rows[0]?.events ?? 0), expected: Number(rows[0]?.expected ?? 0) };
  }

  /**
   * Compares the receiver's arrivals with what PostgreSQL committed; `filter` limits the check to
   * some events (those of one chaos fault).
   */
  async check(filter: (eventId: string) => boolean = () => true): Promise<Check> {
    const { rows } = await this.db.query<EventRow>(
      `SELECT id, company_id, type, extract(epoch FROM created_at) * 1000 AS created_ms FROM events`,
    );
    const state = await this.db.query<{ unrelayed: string; pending: string }>(
      `SELECT (SELECT count(*) FROM event_outbox) AS unrelayed,
              (SELECT count(*) FROM deliveries WHERE status = 'pending') AS pending`,
    );
    let events = 0;
    let expected = 0;
    let delivered = 0;
    let duplicates = 0;
    const lags: number[] = [];
    const lost: Array<{ eventId: string; integrationId: number }> = [];
    for (const event of rows) {
      if (!filter(event.id)) continue;
      events += 1;
      for (const integration of this.routes(event)) {
        expected += 1;
        const arrival = this.receiver.arrivals.get(pairKey(event.id, integration.id));
        if (!arrival) {
          lost.push({ eventId: event.id, integrationId: integration.id });
          continue;
        }
        delivered += 1;
        duplicates += arrival.count - 1;
        lags.push(arrival.firstAt - Number(event.created_ms));
      }
    }
    lags.sort((a, b) => a - b);
    return {
      events,
      expected,
      delivered,
      duplicates,
      lost: lost.length,
      lagP50Ms: percentile(lags, 50),
      lagP99Ms: percentile(lags, 99),
      lagMaxMs: lags.at(-1) ?? Number.NaN,
      unrelayed: Number(state.rows[0]?.unrelayed ?? 0),
      pendingDeliveries: Number(state.rows[0]?.pending ?? 0),
      lostSamples: lost.length > 0 ? await this.describe(lost.slice(0, 8)) : [],
    };
  }

  private async describe(pairs: Array<{ eventId: string; integrationId: number }>): Promise<string[]> {
    const { rows } = await this.db.query<{
      event_id: string;
      type: string;
      created_at: Date;
      claimed: boolean;
      integration_id: number;
      status: string | null;
      attempts: number | null;
      last_status_code: number | null;
      last_error: string | null;
    }>(
      `SELECT e.id AS event_id, e.type, e.created_at, p.integration_id,
              NOT EXISTS (SELECT 1 FROM event_outbox o WHERE o.seq = e.seq) AS claimed,
              d.status, d.attempts, d.last_status_code, d.last_error
         FROM unnest($1::text[], $2::int[]) AS p(event_id, integration_id)
         JOIN events e ON e.id = p.event_id
         LEFT JOIN deliveries d ON d.event_id = p.event_id AND d.integration_id = p.integration_id`,
      [pairs.map((p) => p.eventId), pairs.map((p) => p.integrationId)],
    );
    return rows.map(
      (r) =>
        `${r.event_id} (${r.type}, committed ${r.created_at.toISOString()}, ${r.claimed ? 'claimed' : 'not claimed yet'}) → integration ${r.integration_id}: ` +
        (r.status === null
          ? 'no delivery row'
          : `delivery ${r.status}, ${r.attempts ?? 0} attempt(s), last ${r.last_status_code ?? '–'} ${r.last_error ?? ''}`.trim()),
    );
  }

  /**
   * Waits until every expected pair has arrived and PostgreSQL has nothing in flight (no unrelayed
   * event, no pending delivery), or nothing has been in flight for `settleMs` while pairs are still
   * missing, or the time is up; then checks.
   */
  async drain(options: {
    timeoutMs: number;
    settleMs?: number;
    filter?: (eventId: string) => boolean;
    progress: (line: string) => void;
  }): Promise<Check> {
    const started = Date.now();
    const settleMs = options.settleMs ?? 8000;
    let idleSince: number | undefined;
    let lastLine = 0;
    for (;;) {
      let check: Check | undefined;
      try {
        check = await this.check(options.filter);
      } catch (err) {
        options.progress(`drain: PostgreSQL not answering (${(err as Error).message}); retrying`);
      }
      if (check) {
        // Everything arrived and nothing is in flight: a delivery still pending after its pair arrived
        // (a worker killed mid-request) will be sent again, and that duplicate belongs to this check.
        if (check.lost === 0 && check.unrelayed === 0 && check.pendingDeliveries === 0) return check;
        const idle = check.unrelayed === 0 && check.pendingDeliveries === 0;
        idleSince = idle ? (idleSince ?? Date.now()) : undefined;
        if (idleSince !== undefined && Date.now() - idleSince >= settleMs) return check;
        if (Date.now() - started >= options.timeoutMs) return check;
        if (Date.now() - lastLine >= 3000) {
          lastLine = Date.now();
          options.progress(
            `drain ${((Date.now() - started) / 1000).toFixed(0)} s: ${check.delivered}/${check.expected} delivered, ` +
              `${check.unrelayed} events unrelayed, ${check.pendingDeliveries} deliveries pending`,
          );
        }
      } else if (Date.now() - started >= options.timeoutMs) {
        throw new Error('drain: PostgreSQL did not answer before the drain timed out');
      }
      await sleep(500);
    }
  }
}
