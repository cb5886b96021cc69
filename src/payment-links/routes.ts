import type { Response } from 'express';
import type { AppContext } from '../shared/context.js';
import { operation, route, type Route } from '../shared/http/operation.js';
import { paymentsPrincipal } from '../shared/http/principal.js';
import { errors, json, ref } from '../shared/openapi/builders.js';
import { listBody } from '../shared/pagination.js';
import { toPaymentLinkWire } from './mappers.js';
import { paymentLinkResponse } from './openapi.js';
import type { LinkScope } from './repository.js';
import { createLinkBody, idempotencyHeaders, linkIdParams, listLinksQuery } from './schemas.js';
import { cancelPaymentLink, createPaymentLink, getPaymentLink, listPaymentLinks } from './service.js';

const tags = ['Payment links'];

const scopeOf = (res: Response, linkId: string): LinkScope => {
  const { companyId, livemode } = paymentsPrincipal(res);
  return { companyId, livemode, linkId };
};

/** The payment-links endpoints of the payments API (`/v1/payment-links`). */
export function paymentLinksRoutes(ctx: AppContext): Route[] {
  const wire = toPaymentLinkWire.bind(null, ctx.config);
  // Create and cancel also count toward the tighter per-key limit on writes (60 a minute by default).
  const writes = { rateLimit: 'writes' } as const;
  return [
    route(
      operation({
        method: 'post',
        path: '/v1/payment-links',
        operationId: 'createPaymentLink',
        summary: 'Create a payment link for one offer or one plan',
        tags,
        request: { headers: idempotencyHeaders, body: createLinkBody },
        responses: {
          '201': paymentLinkResponse('Created (`status` active, `order` null)'),
          '200': {
            ...paymentLinkResponse('Idempotent replay: the link created earlier with this Idempotency-Key'),
            headers: { 'Idempotent-Replayed': { schema: { const: 'true' } } },
          },
          ...errors('409'),
        },
      }),
      async ({ headers, body }, res) => {
        const created = await createPaymentLink(
          ctx,
          paymentsPrincipal(res),
          body,
          headers['idempotency-key'],
        );
        if (created.replayed) res.setHeader('Idempotent-Replayed', 'true');
        res.status(created.replayed ? 200 : 201).json(wire(created.link, created.order));
      },
      writes,
    ),
    route(
      operation({
        method: 'get',
        path: '/v1/payment-links',
        operationId: 'listPaymentLinks',
        summary: 'List payment links of your company in the key’s mode, newest first',
        tags,
        request: { query: listLinksQuery },
        responses: { '200': json(ref('PaymentLinkList'), 'One page of links') },
      }),
      async ({ query }, res) => {
        const page = await listPaymentLinks(ctx.db, paymentsPrincipal(res), query);
        res.json(listBody(page, (l) => wire(l.link, l.order)));
      },
    ),
    route(
      operation({
        method: 'get',
        path: '/v1/payment-links/{id}',
        operationId: 'getPaymentLink',
        summary: 'Get a payment link with its current status and order',
        tags,
        request: { params: linkIdParams },
        responses: { '200': paymentLinkResponse('The link'), ...errors('404') },
      }),
      async ({ params }, res) => {
        const found = await getPaymentLink(ctx.db, scopeOf(res, params.id));
        res.json(wire(found.link, found.order));
      },
    ),
    route(
      operation({
        method: 'post',
        path: '/v1/payment-links/{id}/cancel',
        operationId: 'cancelPaymentLink',
        summary: 'Cancel an active link (a canceled link is returned unchanged; paid or expired: 409)',
        description: 'Takes no body; a JSON body is ignored.',
        tags,
        request: { params: linkIdParams },
        responses: { '200': paymentLinkResponse('The canceled link'), ...errors('404', '409') },
      }),
      async ({ params }, res) => {
        const canceled = await cancelPaymentLink(ctx.db, scopeOf(res, params.id));
        res.json(wire(canceled.link, canceled.order));
      },
      writes,
    ),
  ];
}
