import type { AppContext } from '../shared/context.js';
import { operation, route, type Route } from '../shared/http/operation.js';
import { panelPrincipal, paymentsPrincipal } from '../shared/http/principal.js';
import { arrayOf, errors, json, noContent, ref } from '../shared/openapi/builders.js';
import { toCouponWire, toItemWire, toProductWire } from './mappers.js';
import { itemSchemaName } from './openapi.js';
import type { ItemKind } from './repository.js';
import {
  codeParams,
  createCouponBody,
  createOfferBody,
  createPlanBody,
  createProductBody,
  productParams,
  updateCouponBody,
  updateItemBody,
  updateProductBody,
} from './schemas.js';
import * as service from './service.js';

const tags = ['Catalog'];
const plural = (kind: ItemKind): string => `${kind}s`;
const title = (kind: ItemKind): string => (kind === 'offer' ? 'Offer' : 'Plan');

/** GET /v1/offers and GET /v1/plans: the caller's company catalog (every offer or plan, active or not, newest first). */
export function catalogPaymentsRoutes(ctx: AppContext): Route[] {
  return (['offer', 'plan'] as const).map((kind) =>
    route(
      operation({
        method: 'get',
        path: `/v1/${plural(kind)}`,
        operationId: `list${title(kind)}s`,
        summary: `List the company's ${plural(kind)} (all statuses; only those on sale accept links), newest first`,
        tags,
        request: {},
        responses: { '200': json(ref(`${title(kind)}List`), `${title(kind)}s, newest first`) },
      }),
      async (_input, res) => {
        const items = await service.listItems(ctx.db, kind, paymentsPrincipal(res).companyId);
        res.json({ object: 'list', data: items.map((item) => toItemWire(ctx.config, item)) });
      },
    ),
  );
}

function itemRoutes(ctx: AppContext, kind: ItemKind): Route[] {
  const name = itemSchemaName(kind);
  const company = (res: Parameters<typeof panelPrincipal>[0]): number => panelPrincipal(res).companyId;
  const wire = (item: service.CatalogItem) => toItemWire(ctx.config, item);
  return [
    route(
      operation({
        method: 'get',
        path: `/${plural(kind)}`,
        operationId: `listPanel${title(kind)}s`,
        summary: `List the company's ${plural(kind)} (all statuses), newest first`,
        tags,
        request: {},
        responses: { '200': arrayOf(name, `${title(kind)}s`) },
      }),
      async (_input, res) => {
        res.json((await service.listItems(ctx.db, kind, company(res))).map(wire));
      },
    ),
    route(
      operation({
        method: 'post',
        path: `/${plural(kind)}`,
        operationId: `create${title(kind)}`,
        summary: `Create an ${kind} for an active product of the company`,
        tags,
        request: { body: kind === 'offer' ? createOfferBody : createPlanBody },
        responses: { '201': json(ref(name), 'Created') },
      }),
      async ({ body }, res) => {
        res.status(201).json(wire(await service.createItem(ctx.db, kind, company(res), body)));
      },
    ),
    route(
      operation({
        method: 'patch',
        path: `/${plural(kind)}/{code}`,
        operationId: `update${title(kind)}`,
        summary: `Rename, reprice, deactivate or reactivate an ${kind}; one not on sale accepts no new links`,
        tags,
        request: { params: codeParams(`listPanel${title(kind)}s`), body: updateItemBody },
        responses: { '200': json(ref(name), 'Updated'), ...errors('404') },
      }),
      async ({ params, body }, res) => {
        res.json(wire(await service.updateItem(ctx.db, kind, company(res), params.code, body)));
      },
    ),
  ];
}

/**
 * The catalog in the panel (products, offers, plans, coupons): list, create, update and deactivate,
 * so a company can be run without the CLI.
 */
export function catalogPanelRoutes(ctx: AppContext, productChanges: service.ProductChanges): Route[] {
  const company = (res: Parameters<typeof panelPrincipal>[0]): number => panelPrincipal(res).companyId;
  return [
    route(
      operation({
        method: 'get',
        path: '/products',
        operationId: 'listProducts',
        summary: "List the company's products (all statuses), oldest first",
        tags,
        request: {},
        responses: { '200': arrayOf('Product', 'Products') },
      }),
      async (_input, res) => {
        res.json((await service.listProducts(ctx.db, company(res))).map(toProductWire));
      },
    ),
    route(
      operation({
        method: 'post',
        path: '/products',
        operationId: 'createProduct',
        summary: 'Create a product (integrations sending to all products pick it up)',
        tags,
        request: { body: createProductBody },
        responses: { '201': json(ref('Product'), 'Created') },
      }),
      async ({ body }, res) => {
        res
          .status(201)
          .json(toProductWire(await service.createProduct(ctx.db, company(res), body, productChanges)));
      },
    ),
    route(
      operation({
        method: 'patch',
        path: '/products/{id}',
        operationId: 'updateProduct',
        summary: 'Rename, deactivate or reactivate a product',
        tags,
        request: { params: productParams, body: updateProductBody },
        responses: { '200': json(ref('Product'), 'Updated'), ...errors('404') },
      }),
      async ({ params, body }, res) => {
        res.json(
          toProductWire(await service.updateProduct(ctx.db, company(res), params.id, body, productChanges)),
        );
      },
    ),
    route(
      operation({
        method: 'delete',
        path: '/products/{id}',
        operationId: 'removeProduct',
        summary: 'Remove a product that never sold, with its offers, plans and integration links',
        tags,
        request: { params: productParams },
        responses: { '204': noContent('Removed'), ...errors('404', '409') },
      }),
      async ({ params }, res) => {
        await service.removeProduct(ctx.db, company(res), params.id, productChanges);
        res.status(204).end();
      },
    ),
    ...itemRoutes(ctx, 'offer'),
    ...itemRoutes(ctx, 'plan'),
    route(
      operation({
        method: 'get',
        path: '/coupons',
        operationId: 'listCoupons',
        summary: "List the company's coupons, newest first",
        tags,
        request: {},
        responses: { '200': arrayOf('Coupon', 'Coupons') },
      }),
      async (_input, res) => {
        res.json((await service.listCoupons(ctx.db, company(res))).map(toCouponWire));
      },
    ),
    route(
      operation({
        method: 'post',
        path: '/coupons',
        operationId: 'createCoupon',
        summary: 'Create a coupon with exactly one of percent_off and amount_off',
        tags,
        request: { body: createCouponBody },
        responses: { '201': json(ref('Coupon'), 'Created'), ...errors('409') },
      }),
      async ({ body }, res) => {
        res.status(201).json(toCouponWire(await service.createCoupon(ctx.db, company(res), body)));
      },
    ),
    route(
      operation({
        method: 'patch',
        path: '/coupons/{code}',
        operationId: 'updateCoupon',
        summary: 'Deactivate or reactivate a coupon',
        tags,
        request: { params: codeParams('listCoupons'), body: updateCouponBody },
        responses: { '200': json(ref('Coupon'), 'Updated'), ...errors('404') },
      }),
      async ({ params, body }, res) => {
        res.json(toCouponWire(await service.updateCoupon(ctx.db, company(res), params.code, body.status)));
      },
    ),
  ];
}
