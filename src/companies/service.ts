import type { Db } from '../shared/db/index.js';
import { NotFoundError } from '../shared/errors.js';
import { newCatalogCode, newUuid, randomBase62, sha256Hex } from '../shared/ids.js';
import { generatePanelToken } from '../keys/key-format.js';
import { createKey } from '../keys/service.js';
import * as catalog from '../catalog/repository.js';
import * as companies from './repository.js';

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

/** Issues a panel token for a user; the full token is returned once and stored hashed. */
export async function createPanelToken(db: Db, userId: number, companyId?: number): Promise<string> {
  const user = await companies.findUser(db, userId);
  // A token names a user, and through it a company: refuse one the caller did not mean.
  if (!user || (companyId !== undefined && user.companyId !== companyId)) {
    throw new NotFoundError(
      companyId === undefined ? `No user ${userId}` : `No user ${userId} in company ${companyId}`,
    );
  }
  const token = generatePanelToken();
  await companies.insertPanelToken(db, { userId, tokenHash: sha256Hex(token.value), prefix: token.prefix });
  return token.value;
}

/** Panel token for the company's owner. */
export async function createOwnerToken(db: Db, companyId: number): Promise<string> {
  const owner = await companies.findOwner(db, companyId);
  if (!owner) throw new NotFoundError(`Company ${companyId} has no owner`);
  return createPanelToken(db, owner.id);
}

export async function setCompanyActive(
  db: Db,
  companyId: number,
  active: boolean,
): Promise<companies.CompanyRow> {
  const row = await companies.setCompanyActive(db, companyId, active);
  if (!row) throw new NotFoundError(`No company ${companyId}`);
  return row;
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
    const offerRows = [
      await catalog.insertOffer(tx, {
        companyId: company.id,
        productId: course.id,
        code: newCatalogCode('of'),
        name: 'Course, full price',
        price: '297.00',
      }),
      await catalog.insertOffer(tx, {
        companyId: company.id,
        productId: course.id,
        code: newCatalogCode('of'),
        name: 'Course, launch price',
        price: '197.50',
      }),
      await catalog.insertOffer(tx, {
        companyId: company.id,
        productId: community.id,
        code: newCatalogCode('of'),
        name: 'Retired offer',
        price: '49.90',
        status: 'inactive',
      }),
    ];
    const planRows = [
      await catalog.insertPlan(tx, {
        companyId: company.id,
        productId: community.id,
        code: newCatalogCode('pl'),
        name: 'Monthly membership',
        price: '29.90',
        billingCycle: 'monthly',
      }),
      await catalog.insertPlan(tx, {
        companyId: company.id,
        productId: community.id,
        code: newCatalogCode('pl'),
        name: 'Retired yearly plan',
        price: '299.00',
        billingCycle: 'yearly',
        status: 'inactive',
      }),
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
      billing_cycle: p.billingCycle,
      product_id: p.productId,
    })),
    coupons: [{ code: couponRow.code, active: couponRow.active }],
  };
}
