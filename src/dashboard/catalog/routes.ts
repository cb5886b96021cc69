/**
 * The catalog (`/dashboard/catalog`): products, offers, plans and coupons, created and edited as
 * the panel API allows, through its own services, its forms checked by its own schemas.
 */
import { Router, type Request, type Response } from 'express';
import type { ItemKind } from '../../catalog/repository.js';
import {
  createCouponBody,
  createOfferBody,
  createPlanBody,
  createProductBody,
  updateCouponBody,
  updateItemBody,
  updateProductBody,
} from '../../catalog/schemas.js';
import * as catalog from '../../catalog/service.js';
import { productChanges } from '../../integrations/service.js';
import type { AppContext } from '../../shared/context.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { v } from '../../shared/validation/typed.js';
import { apiProblems, takenAs } from '../api-messages.js';
import { dashboardLocale } from '../locale.js';
import { sendPage, type Chrome } from '../page.js';
import { byApiSchema, doneQuery, formOf, pathPart, queryOf, sentText } from '../params.js';
import { changing, requireChrome, signedIn } from '../session-guard.js';
import { catalogFieldLabels, catalogFormPage, catalogPage, type CatalogFormValues } from './views.js';

const catalogForm = v
  .object({
    name: sentText(),
    status: sentText(),
    price: sentText(),
    product_id: sentText(),
    billing_cycle: sentText(),
    guarantee_days: sentText(),
    code: sentText(),
    percent_off: sentText(),
    amount_off: sentText(),
    content: sentText(),
  })
  .unknown(true);

/**
 * A product's content as typed (one item a line: `title | https://address | description`) in the
 * API's shape; the API's schema then checks each item (a line without an address fails there).
 */
const contentOf = (text: string): Array<{ title: string; url: string; description?: string }> =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [title = '', url = '', ...rest] = line.split('|').map((part) => part.trim());
      const description = rest.join(' | ');
      return { title, url, ...(description ? { description } : {}) };
    });

/** The content line of an item, as the form shows it. */
const contentLine = (item: { title: string; url: string; description: string }): string =>
  [item.title, item.url, ...(item.description ? [item.description] : [])].join(' | ');

const productId = () => v.string().pattern(/^[1-9][0-9]{0,9}$/);
const itemCode = () => v.string().pattern(/^[0-9A-Za-z_-]{1,100}$/);

/** An amount as typed: a decimal comma (pt-BR's "97,00") is the API's dot; anything else as sent. */
const decimalOf = (text: string): string => (/^\d+,\d{1,2}$/.test(text) ? text.replace(',', '.') : text);
/** A product id as the API's body carries it (a number); anything else is left to its schema. */
const integerOf = (text: string): number | string => (/^[0-9]{1,10}$/.test(text) ? Number(text) : text);
/** The fields of `values` that were filled in. */
const filled = (values: Record<string, string | number>): Record<string, string | number> =>
  Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));

const KINDS: ItemKind[] = ['offer', 'plan'];

export function catalogRoutes(ctx: AppContext): Router {
  const router = Router({ caseSensitive: true });

  router.get('/catalog', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const { companyId } = chrome.principal;
    const [products, offers, plans, coupons] = await Promise.all([
      catalog.listProducts(ctx.db, companyId),
      catalog.listItems(ctx.db, 'offer', companyId),
      catalog.listItems(ctx.db, 'plan', companyId),
      catalog.listCoupons(ctx.db, companyId),
    ]);
    const { done } = queryOf(req, doneQuery);
    sendPage(res, 200, page, catalogPage(page, chrome, { products, offers, plans, coupons, done }));
  });

  /**
   * A catalog form: drawn empty or with the entry's values, or drawn again as sent with the API's
   * problems (400). `change` makes the form's values into the service call.
   */
  async function form(
    req: Request,
    res: Response,
    chrome: Chrome,
    spec: {
      what: 'product' | ItemKind | 'coupon';
      title: string;
      action: string;
      creating: boolean;
      values: CatalogFormValues;
      change?: (values: CatalogFormValues) => Promise<unknown>;
      done: 'catalog_created' | 'saved';
    },
  ): Promise<void> {
    const page = dashboardLocale(req);
    let problems;
    if (spec.change) {
      try {
        await spec.change(spec.values);
        res.redirect(303, page.href('/catalog', { done: spec.done }));
        return;
      } catch (err) {
        const refused = err instanceof ValidationError ? err : takenAs('code', err);
        if (!refused) throw err;
        problems = apiProblems(page, refused, catalogFieldLabels(page));
      }
    }
    const needsProducts = spec.creating && (spec.what === 'offer' || spec.what === 'plan');
    const products = needsProducts ? await catalog.listProducts(ctx.db, chrome.principal.companyId) : [];
    sendPage(res, problems ? 400 : 200, page, catalogFormPage(page, chrome, { ...spec, products, problems }));
  }

  const sent = (req: Request): CatalogFormValues => formOf(req, catalogForm);
  type What = 'product' | ItemKind | 'coupon';
  type Words = ReturnType<typeof dashboardLocale>['t']['catalog'];

  /** `GET {path}/new`, the empty form, and `POST {path}`, which creates the entry with `create`. */
  function creatable(
    what: What,
    path: string,
    title: (t: Words) => string,
    create: (companyId: number, values: CatalogFormValues) => Promise<unknown>,
  ): void {
    const spec = (req: Request) => ({
      what,
      title: title(dashboardLocale(req).t.catalog),
      action: path,
      creating: true,
      done: 'catalog_created' as const,
    });
    router.get(`${path}/new`, async (req, res) => {
      const chrome = changing(req, res);
      if (!chrome) return;
      await form(req, res, chrome, { ...spec(req), values: {} });
    });
    router.post(path, async (req, res) => {
      const chrome = requireChrome(req);
      const { companyId } = chrome.principal;
      await form(req, res, chrome, {
        ...spec(req),
        values: sent(req),
        change: (values) => create(companyId, values),
      });
    });
  }

  /** `GET {route}`, the entry's form with its values, and `POST {route}`, which saves it with `save`. */
  function editable<E>(
    what: What,
    route: string,
    entry: {
      find: (chrome: Chrome, req: Request) => Promise<E>;
      path: (found: E) => string;
      title: (t: Words, found: E) => string;
      values: (found: E, req: Request) => CatalogFormValues;
      save: (companyId: number, found: E, values: CatalogFormValues) => Promise<unknown>;
    },
  ): void {
    const spec = (req: Request, found: E) => ({
      what,
      title: entry.title(dashboardLocale(req).t.catalog, found),
      action: entry.path(found),
      creating: false,
      done: 'saved' as const,
    });
    router.get(route, async (req, res) => {
      const chrome = changing(req, res);
      if (!chrome) return;
      const found = await entry.find(chrome, req);
      await form(req, res, chrome, { ...spec(req, found), values: entry.values(found, req) });
    });
    router.post(route, async (req, res) => {
      const chrome = requireChrome(req);
      const found = await entry.find(chrome, req);
      const { companyId } = chrome.principal;
      await form(req, res, chrome, {
        ...spec(req, found),
        values: sent(req),
        change: (values) => entry.save(companyId, found, values),
      });
    });
  }

  creatable(
    'product',
    '/catalog/products',
    (t) => t.newProduct,
    (companyId, values) =>
      catalog.createProduct(
        ctx.db,
        companyId,
        byApiSchema(createProductBody, {
          name: values.name ?? '',
          status: values.status ?? '',
          ...(values.content ? { content: contentOf(values.content) } : {}),
        }),
        productChanges,
      ),
  );
  editable('product', '/catalog/products/:id', {
    find: async (chrome, req) => {
      const id = Number(pathPart(productId(), req.params.id));
      const product = (await catalog.listProducts(ctx.db, chrome.principal.companyId)).find(
        (p) => p.id === id,
      );
      if (!product) throw new NotFoundError(`No product ${id} in this company`);
      return product;
    },
    path: (product) => `/catalog/products/${product.id}`,
    title: (t, product) => t.editProduct(product.name),
    values: (product) => ({
      name: product.name,
      status: product.active ? 'active' : 'inactive',
      content: product.content.map(contentLine).join('\n'),
    }),
    save: (companyId, product, values) =>
      catalog.updateProduct(
        ctx.db,
        companyId,
        product.id,
        byApiSchema(updateProductBody, {
          name: values.name ?? '',
          status: values.status ?? '',
          ...(values.content !== undefined ? { content: contentOf(values.content) } : {}),
        }),
        productChanges,
      ),
  });

  for (const kind of KINDS) {
    const path = `/catalog/${kind}s`;
    creatable(
      kind,
      path,
      (t) => (kind === 'offer' ? t.newOffer : t.newPlan),
      (companyId, values) => {
        const input = {
          product_id: integerOf(values.product_id ?? ''),
          name: values.name ?? '',
          price: decimalOf(values.price ?? ''),
          status: values.status ?? '',
          ...filled({ guarantee_days: integerOf(values.guarantee_days ?? '') }),
          ...(kind === 'plan' ? { billing_cycle: values.billing_cycle ?? '' } : {}),
        };
        const body =
          kind === 'offer' ? byApiSchema(createOfferBody, input) : byApiSchema(createPlanBody, input);
        return catalog.createItem(ctx.db, kind, companyId, body);
      },
    );
    editable(kind, `${path}/:code`, {
      find: async (chrome, req) => {
        const code = pathPart(itemCode(), req.params.code);
        const item = (await catalog.listItems(ctx.db, kind, chrome.principal.companyId)).find(
          (i) => i.code === code,
        );
        if (!item) throw new NotFoundError(`No ${kind} ${code} in this company`);
        return item;
      },
      path: (item) => `${path}/${item.code}`,
      title: (t, item) => (kind === 'offer' ? t.editOffer(item.code) : t.editPlan(item.code)),
      // A pt-BR page shows the price with its decimal comma, as it takes it.
      values: (item, req) => ({
        name: item.name,
        price: dashboardLocale(req).lang === 'pt-BR' ? item.price.replace('.', ',') : item.price,
        guarantee_days: String(item.guaranteeDays),
        status: item.status,
      }),
      save: (companyId, item, values) =>
        catalog.updateItem(
          ctx.db,
          kind,
          companyId,
          item.code,
          byApiSchema(updateItemBody, {
            name: values.name ?? '',
            price: decimalOf(values.price ?? ''),
            status: values.status ?? '',
            ...filled({ guarantee_days: integerOf(values.guarantee_days ?? '') }),
          }),
        ),
    });
  }

  // Coupons: created, then only activated or deactivated (as the panel API allows).
  creatable(
    'coupon',
    '/catalog/coupons',
    (t) => t.newCoupon,
    (companyId, values) =>
      catalog.createCoupon(
        ctx.db,
        companyId,
        byApiSchema(createCouponBody, {
          code: values.code ?? '',
          status: values.status ?? '',
          // The form has both discounts; the one left empty was not given.
          ...filled({
            percent_off: decimalOf(values.percent_off ?? ''),
            amount_off: decimalOf(values.amount_off ?? ''),
          }),
        }),
      ),
  );
  router.post('/catalog/coupons/:code/status', async (req, res) => {
    const { companyId } = requireChrome(req).principal;
    const code = pathPart(v.string().pattern(/^[A-Za-z0-9_-]{1,40}$/), req.params.code);
    const { status } = byApiSchema(updateCouponBody, { status: sent(req).status ?? '' });
    await catalog.updateCoupon(ctx.db, companyId, code, status);
    res.redirect(303, dashboardLocale(req).href('/catalog', { done: 'saved' }));
  });

  return router;
}
