import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
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
  });
  expect(page.status, page.body).to.be.oneOf([200, 202]);
  const list = await app.http.get<List<PanelOrder>>(`${P}/orders?limit=100`, { auth: tenant.panel_token });
  const order = list.body.data.find(
    (o) => o.customer.email === email.toLowerCase() || o.customer.email === email,
  );
  if (!order) throw new Error(`no order of ${email} in the panel`);
  return { page, order };
}
