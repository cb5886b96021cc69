import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import { addDays, startOfBrazilDay } from '../../src/shared/brazil-time.js';
import { insertUser } from '../../src/companies/repository.js';
import { createPanelToken } from '../../src/companies/service.js';
import type { TestApp } from '../helpers/app.js';
import type { HttpResponse } from '../helpers/http.js';
import { payPath, postForm } from '../checkout/helpers.js';

export const P = '/panel/v1';

/** The panel's Order object. */
export interface PanelOrder {
  object: 'order';
  code: string;
  status: string;
  amount: string;
  fees: { platform: string; gateway: string };
  net_amount: string;
  payment_method: string | null;
  livemode: boolean;
  link_id: string | null;
  subscription_id: number | null;
  customer: { name: string | null; email: string | null; phone: string | null; document: string | null };
  product: { id: number; name: string };
  offer_code: string | null;
  plan_code: string | null;
  created_at: string;
  paid_at: string | null;
  refunded_at: string | null;
  refund_requested_by: 'seller' | 'buyer' | null;
  refund_reason: string | null;
  installments: number | null;
  pix: { copy_paste: string; expires_at: string } | null;
  boleto: { digitable_line: string; barcode: string; due_date: string; url: string } | null;
}

/**
 * When a pending order is abandoned, worked out here from what the panel shows: its Pix expiry, the
 * end (Brasília time) of the third day after its boleto's due date.
 */
export function deadlineOf(order: Pick<PanelOrder, 'pix' | 'boleto'>): Date {
  if (order.pix) return new Date(order.pix.expires_at);
  if (order.boleto) return startOfBrazilDay(addDays(order.boleto.due_date, 4));
  throw new Error('this order has no Pix or boleto deadline');
}

export interface PanelSubscription {
  object: 'subscription';
  id: number;
  status: string;
  livemode: boolean;
  plan_code: string;
  billing_cycle: string;
  current_period_end: string;
  canceled_at: string | null;
  cancel_at_period_end: boolean;
  cancel_reason: 'requested' | 'payment_failed' | 'chargeback' | null;
  created_at: string;
}

export interface List<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

/** A member's panel token for the tenant (seed gives the owner's). */
export async function memberToken(app: TestApp, tenant: SeedResult): Promise<string> {
  const user = await insertUser(app.ctx.db, {
    companyId: tenant.company.id,
    email: `member-${tenant.company.id}-${Date.now()}@example.com`,
    name: 'Member',
    role: 'member',
  });
  return createPanelToken(app.ctx.db, user.id);
}

/** The three panel credentials of a tenant, for tests that every role sees the same. */
export async function panelRoles(
  app: TestApp,
  tenant: SeedResult,
): Promise<{ owner: string; member: string; readOnly: string }> {
  return {
    owner: tenant.panel_token,
    member: await memberToken(app, tenant),
    readOnly: tenant.keys.read_only,
  };
}

export interface Buyer {
  name?: string;
  email?: string;
  phone?: string;
  document?: string;
  payment_method?: 'credit_card' | 'pix' | 'boleto';
  installments?: string;
}

/**
 * Submits the checkout of `code` (through the link `plink`, if any) as a buyer would, and returns the
 * page's status with the order it made, read through the panel (newest order of that buyer).
 */
export async function checkout(
  app: TestApp,
  tenant: SeedResult,
  code: string,
  plink: string | null,
  buyer: Buyer = {},
): Promise<{ page: HttpResponse<string>; order: PanelOrder }> {
  const email = buyer.email ?? `buyer-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
  const page = await postForm(app, payPath(app, `/${code}/pay`), {
    ...(plink ? { plink } : {}),
    name: buyer.name ?? 'Bia Buyer',
    email,
    ...(buyer.phone ? { phone: buyer.phone } : {}),
    ...(buyer.document ? { document: buyer.document } : {}),
    payment_method: buyer.payment_method ?? 'credit_card',
    ...(buyer.installments ? { installments: buyer.installments } : {}),
  });
  // The pay step leads (303) to the order's page.
  expect(page.status, page.body).to.equal(200);
  const list = await app.http.get<List<PanelOrder>>(`${P}/orders?limit=100`, { auth: tenant.panel_token });
  const order = list.body.data.find(
    (o) => o.customer.email === email.toLowerCase() || o.customer.email === email,
  );
  if (!order) throw new Error(`no order of ${email} in the panel`);
  return { page, order };
}
