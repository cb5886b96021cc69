import { sql } from 'drizzle-orm';
import type { SeedResult } from '../../src/cli/seed.js';
import type { PaymentLinkWire } from '../../src/payment-links/mappers.js';
import type { TestApp } from '../helpers/app.js';

export type LinkBody = PaymentLinkWire;

export interface ErrorBody {
  error: { type: string; message: string; fields?: Record<string, string[]>; retry_after_seconds?: number };
}

export interface ListBody {
  object: 'list';
  data: LinkBody[];
  has_more: boolean;
}

/** Valid documents (check digits verified) in the formats buyers type them. */
export const VALID_CPF = '529.982.247-25';
export const VALID_CNPJ = '11.222.333/0001-81';

export const activeOffer = (tenant: SeedResult): string => {
  const offer = tenant.offers.find((o) => o.status === 'active');
  if (!offer) throw new Error('seed has no active offer');
  return offer.code;
};
export const inactiveOffer = (tenant: SeedResult): string => {
  const offer = tenant.offers.find((o) => o.status !== 'active');
  if (!offer) throw new Error('seed has no inactive offer');
  return offer.code;
};
export const activePlan = (tenant: SeedResult): string => {
  const plan = tenant.plans.find((p) => p.status === 'active');
  if (!plan) throw new Error('seed has no active plan');
  return plan.code;
};
export const inactivePlan = (tenant: SeedResult): string => {
  const plan = tenant.plans.find((p) => p.status !== 'active');
  if (!plan) throw new Error('seed has no inactive plan');
  return plan.code;
};

/** Creates a link and insists on 201, so a failing precondition reads as such. */
export async function createLink(
  app: TestApp,
  key: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<LinkBody> {
  const res = await app.http.post<LinkBody>('/v1/payment-links', { auth: key, body, headers });
  if (res.status !== 201) throw new Error(`expected 201, got ${res.status}: ${res.text}`);
  return res.body;
}

/** Counts a company's links straight from the database (what was really written). */
export async function countLinks(app: TestApp, companyId: number): Promise<number> {
  const result = await app.ctx.pool.query<{ n: string }>(
    'SELECT count(*) AS n FROM payment_links WHERE company_id = $1',
    [companyId],
  );
  return Number(result.rows[0]?.n ?? 0);
}

/** Moves a link's expiry into the past, as if its time had run out while the expiry job was late. */
export async function backdateExpiry(app: TestApp, linkId: string): Promise<void> {
  await app.ctx.db.execute(
    sql`UPDATE payment_links SET expires_at = clock_timestamp() - interval '1 minute' WHERE id = ${linkId}`,
  );
}

export async function storedStatus(app: TestApp, linkId: string): Promise<string | undefined> {
  const result = await app.ctx.pool.query<{ status: string }>(
    'SELECT status FROM payment_links WHERE id = $1',
    [linkId],
  );
  return result.rows[0]?.status;
}
