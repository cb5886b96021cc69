/**
 * `cli listen`: like `stripe listen`. A local receiver, a webhook integration of the company pointing
 * at it, and one verified line per event as it arrives; the integration goes away on exit.
 */
import http from 'node:http';
import { stringOf } from '../integrations/kinds/config-values.js';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import { eventFilterPaths } from '../apps/filter-paths.js';
import { EVENT_KINDS, isEventKind, type EventKind } from '../events/kinds.js';
import { listIntegrations } from '../integrations/repository.js';
import { createIntegration, deleteIntegration, updateIntegration } from '../integrations/service.js';
import type { Config } from '../shared/config.js';
import type { Db } from '../shared/db/index.js';
import { firstAttemptsOutstanding } from '../webhooks/repository/delivery-log.js';

/** How long a stopping listener waits for events committed before the stop to arrive. */
const DRAIN_MS = 10_000;

/** The path every listener receives on: it marks the integration as the CLI's, to be reused. */
export const LISTEN_PATH = '/payment-links-cli-listen';

export interface ListenOptions {
  companyId: number;
  events: EventKind[];
  forwardTo: string | undefined;
  json: boolean;
  /** Where lines go (stdout); flushed per line. */
  out: (line: string) => void;
}

export class ListenError extends Error {}

interface Envelope {
  id?: string;
  type?: string;
  livemode?: boolean;
  data?: {
    purchase?: { payment_link?: { code?: string } | null; tracking?: { external_reference?: string | null } };
    order?: { status?: string } | null;
    subscription?: { id?: number; status?: string; cancel_reason?: string | null } | null;
  };
}

const signer = (secret: string): Webhook =>
  secret.startsWith('whsec_')
    ? new Webhook(secret)
    : new Webhook(new TextEncoder().encode(secret), { format: 'raw' });

function describe(body: string, verified: boolean): string {
  let event: Envelope = {};
  try {
    event = JSON.parse(body) as Envelope;
  } catch {
    // shown as unverified below
  }
  const link = event.data?.purchase?.payment_link?.code ?? '-';
  const reference = event.data?.purchase?.tracking?.external_reference ?? '-';
  const mode = event.livemode ? 'live' : 'test';
  const facts = [`${mode} link=${link} ref=${reference}`];
  // The order's and the subscription's state as the event left them: a subscription's life reads
  // line by line (created, past_due, active again, canceled and why).
  const { order, subscription } = event.data ?? {};
  if (order?.status) facts.push(`order=${order.status}`);
  if (subscription?.id !== undefined) {
    const reason = subscription.cancel_reason ? ` (${subscription.cancel_reason})` : '';
    facts.push(`sub=${subscription.id} ${subscription.status ?? '?'}${reason}`);
  }
  return [
    new Date().toISOString(),
    verified ? 'verified  ' : 'UNVERIFIED',
    (event.type ?? '?').padEnd(24),
    event.id ?? '?',
    facts.join(' '),
  ].join('  ');
}

const parsed = (body: string): unknown => {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
};

export function parseEvents(value: string | undefined): EventKind[] {
  if (value === undefined || value === '') return [...EVENT_KINDS];
  const kinds = value
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  const unknown = kinds.filter((k) => !isEventKind(k));
  if (unknown.length > 0)
    throw new ListenError(`unknown event kind: ${unknown.join(', ')} (known: ${EVENT_KINDS.join(', ')})`);
  return kinds.filter(isEventKind);
}

/** Runs until `stop` resolves; returns after the integration is removed and the receiver closed. */
export async function listen(
  db: Db,
  config: Config,
  options: ListenOptions,
  stop: Promise<void>,
): Promise<void> {
  if (!config.webhooks.allowPrivateTargets) {
    throw new ListenError(
      'listen receives on 127.0.0.1, which this configuration refuses as a webhook target; ' +
        'run it where ALLOW_PRIVATE_WEBHOOK_TARGETS=true (the default outside production)',
    );
  }
  // Known once the integration exists, which needs the receiver's port first.
  const signing: { verifier?: Webhook } = {};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      let verified = false;
      try {
        signing.verifier?.verify(body, headers);
        verified = true;
      } catch {
        verified = false;
      }
      options.out(
        options.json ? JSON.stringify({ verified, headers, body: parsed(body) }) : describe(body, verified),
      );
      void forward(options.forwardTo, req.headers, body).then((status) => {
        res.writeHead(status).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${LISTEN_PATH}`;

  const deps = { db, config, eventPaths: eventFilterPaths };
  const mine = (await listIntegrations(db, options.companyId, 'webhook')).find((i) =>
    String(i.config.url ?? '').includes(LISTEN_PATH),
  );
  const input = {
    type: 'webhook' as const,
    config: { url },
    events: options.events,
    is_active: true,
    send_to_all_products: true,
  };
  const { row } = mine
    ? await updateIntegration(deps, options.companyId, mine.id, input)
    : await createIntegration(deps, options.companyId, input);
  const secret = stringOf(row.config, 'secret') ?? '';
  signing.verifier = signer(secret);
  options.out(
    `Ready: integration ${row.id} ${mine ? '(reused) ' : ''}receives ${options.events.length === EVENT_KINDS.length ? 'every event' : options.events.join(', ')} ` +
      `at ${url}${options.forwardTo ? `, forwarding to ${options.forwardTo}` : ''}. Signing secret: ${secret}. Ctrl-C to stop.`,
  );
  try {
    await stop;
    // A script that changes something and then stops listen (the README's quick start) expects the
    // change's event on screen: wait, a bounded time, for what was committed before the stop.
    const stoppedAt = new Date();
    const giveUpAt = Date.now() + DRAIN_MS;
    while (
      Date.now() < giveUpAt &&
      (await firstAttemptsOutstanding(db, options.companyId, row.id, stoppedAt)) > 0
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await deleteIntegration(db, options.companyId, row.id);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    options.out(`Removed integration ${row.id}.`);
  }
}

/** Passes the request on unchanged (signature headers included) and answers with its status. */
async function forward(
  target: string | undefined,
  headers: http.IncomingHttpHeaders,
  body: string,
): Promise<number> {
  if (!target) return 200;
  const pass: Record<string, string> = {};
  for (const name of ['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = headers[name];
    if (typeof value === 'string') pass[name] = value;
  }
  try {
    const res = await request(target, { method: 'POST', headers: pass, body });
    await res.body.dump();
    return res.statusCode;
  } catch {
    return 502;
  }
}
