import * as catalog from '../catalog/repository.js';
import type { ItemKind, NewItem } from '../catalog/repository.js';
import * as companies from '../companies/repository.js';
import { createPanelToken, setCompanyActive } from '../companies/service.js';
import { createKey } from '../keys/service.js';
import type { Db } from '../shared/db/index.js';
import type { BillingCycle } from '../shared/enums/billing-cycles.js';
import { newCatalogCode, newUuid, randomBase62 } from '../shared/ids.js';

export interface SeedOptions {
  name?: string;
  inactive?: boolean;
}

/** The one JSON object `cli seed --json` prints; tests use the same shape. */
export interface SeedResult {
  company: { id: number; name: string; active: boolean };
  panel_token: string;
  keys: { test: string; live: string; read_only: string };
  products: Array<{ id: number; code: string; name: string }>;
  offers: Array<{ code: string; name: string; status: string; price: string; product_id: number }>;
  plans: Array<{
    code: string;
    name: string;
    status: string;
    price: string;
    billing_cycle: string;
    product_id: number;
  }>;
  coupons: Array<{ code: string; active: boolean }>;
}

/**
 * A complete demo tenant: owner, panel token, test/live/read-only keys and a small catalog with
 * active and inactive entries, so every rule of the API can be tried at once.
 */
export async function seedCompany(db: Db, options: SeedOptions = {}): Promise<SeedResult> {
  const name = options.name ?? `Demo company ${randomBase62(6)}`;
  const { company, owner, productRows, offerRows, planRows, couponRow } = await db.transaction(async (tx) => {
    const company = await companies.insertCompany(tx, name, true);
    const owner = await companies.insertUser(tx, {
      companyId: company.id,
      email: `owner+${company.id}-${randomBase62(6).toLowerCase()}@example.com`,
      name: 'Owner',
      role: 'owner',
    });
    const productRows = [
      await catalog.insertProduct(tx, { companyId: company.id, code: newUuid(), name: 'Online course' }),
      await catalog.insertProduct(tx, {
        companyId: company.id,
        code: newUuid(),
        name: 'Community membership',
      }),
    ];
    const [course, community] = productRows as [catalog.ProductRow, catalog.ProductRow];
    const item = async (kind: ItemKind, fields: Omit<NewItem, 'companyId' | 'code'>): Promise<NewItem> => {
      const row = { ...fields, companyId: company.id, code: newCatalogCode(kind === 'offer' ? 'of' : 'pl') };
      await catalog.insertItem(tx, kind, row);
      return row;
    };
    const offer = (productId: number, name: string, price: string, status: NewItem['status'] = 'active') =>
      item('offer', { productId, name, price, status, billingCycle: null });
    const plan = (
      productId: number,
      name: string,
      price: string,
      cycle: BillingCycle,
      status: NewItem['status'] = 'active',
    ) => item('plan', { productId, name, price, status, billingCycle: cycle });
    const offerRows = [
      await offer(course.id, 'Course, full price', '297.00'),
      await offer(course.id, 'Course, launch price', '197.50'),
      await offer(community.id, 'Retired offer', '49.90', 'inactive'),
    ];
    const planRows = [
      await plan(community.id, 'Monthly membership', '29.90', 'monthly'),
      await plan(community.id, 'Retired yearly plan', '299.00', 'yearly', 'inactive'),
    ];
    const couponRow = await catalog.insertCoupon(tx, {
      companyId: company.id,
      code: `WELCOME${randomBase62(4).toUpperCase()}`,
      percentOff: '10.00',
    });
    return { company, owner, productRows, offerRows, planRows, couponRow };
  });
  const panelToken = await createPanelToken(db, owner.id);
  const test = await createKey(db, { companyId: company.id, name: 'Test key', kind: 'payments', test: true });
  const live = await createKey(db, {
    companyId: company.id,
    name: 'Live key',
    kind: 'payments',
    test: false,
  });
  const readOnly = await createKey(db, {
    companyId: company.id,
    name: 'Read-only key',
    kind: 'read_only',
    test: false,
  });
  const active = options.inactive ? (await setCompanyActive(db, company.id, false)).active : company.active;
  return {
    company: { id: company.id, name: company.name, active },
    panel_token: panelToken,
    keys: { test: test.value, live: live.value, read_only: readOnly.value },
    products: productRows.map((p) => ({ id: p.id, code: p.code, name: p.name })),
    offers: offerRows.map((o) => ({
      code: o.code,
      name: o.name,
      status: o.status,
      price: o.price,
      product_id: o.productId,
    })),
    plans: planRows.map((p) => ({
      code: p.code,
      name: p.name,
      status: p.status,
      price: p.price,
      billing_cycle: p.billingCycle ?? '',
      product_id: p.productId,
    })),
    coupons: [{ code: couponRow.code, active: couponRow.active }],
  };
}
