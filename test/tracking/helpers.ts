import { expect } from 'chai';
import type { SeedResult } from '../../src/cli/seed.js';
import type { TestApp } from '../helpers/app.js';
import { pathOf, payPath, type WireLink } from '../checkout/helpers.js';
import { P, type List, type PanelOrder } from '../orders/helpers.js';

export type Campaign = Record<
  'utm_source' | 'utm_medium' | 'utm_campaign' | 'utm_content' | 'utm_term' | 'src' | 'sck',
  string | null
>;

export interface TrackedOrder extends PanelOrder {
  tracking: Campaign;
}

export const NO_CAMPAIGN: Campaign = {
  utm_source: null,
  utm_medium: null,
  utm_campaign: null,
  utm_content: null,
  utm_term: null,
  src: null,
  sck: null,
};

const unescape = (value: string): string =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The hidden fields of a page's form, as a browser would post them back. */
export function hiddenFields(page: string): Record<string, string> {
  return Object.fromEntries(
    [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
      m[1] ?? '',
      unescape(m[2] ?? ''),
    ]),
  );
}

export interface Visit {
  /** Added to the link's address (`utm_source=…&fbclid=…`). */
  query?: string;
  cookie?: string;
  userAgent?: string;
  method?: 'credit_card' | 'pix' | 'boleto';
  email?: string;
  phone?: string;
  name?: string;
}

/**
 * A buyer's visit as a browser makes it: opens the link's page at its address (plus `query`), then
 * posts its form with the page's hidden fields, the buyer's entries and the browser's cookies and user
 * agent. Returns the page and the order the panel shows.
 */
export async function visitAndPay(
  app: TestApp,
  tenant: SeedResult,
  link: WireLink,
  visit: Visit = {},
): Promise<{ page: string; order: TrackedOrder }> {
  const address = pathOf(app, link.url);
  const headers: Record<string, string> = {
    'accept-language': 'en',
    ...(visit.cookie ? { cookie: visit.cookie } : {}),
    ...(visit.userAgent ? { 'user-agent': visit.userAgent } : {}),
  };
  const opened = await app.http.get<string>(`${address}${visit.query ? `&${visit.query}` : ''}`, { headers });
  expect(opened.status, opened.text.slice(0, 300)).to.equal(200);
  const code = new URL(link.url).pathname.split('/').at(-1) ?? '';
  const email = visit.email ?? `buyer-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
  const paid = await app.http.post<string>(payPath(app, `/${code}/pay?lang=en`), {
    rawBody: new URLSearchParams({
      ...hiddenFields(opened.body),
      name: visit.name ?? 'Bia Buyer',
      email,
      ...(visit.phone ? { phone: visit.phone } : {}),
      payment_method: visit.method ?? 'credit_card',
    }).toString(),
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(paid.status, paid.text.slice(0, 500)).to.equal(200);
  const list = await app.http.get<List<TrackedOrder>>(`${P}/orders?limit=100`, { auth: tenant.panel_token });
  const order = list.body.data.find((o) => o.customer.email?.toLowerCase() === email.trim().toLowerCase());
  if (!order) throw new Error(`no order of ${email}`);
  return { page: opened.body, order };
}
