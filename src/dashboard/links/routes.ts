/**
 * The payment links of the company, in one mode at a time (links live in one mode): the list,
 * creating one without code, a link's page with its QR code, and canceling one. Each calls the
 * payments API's own service, with the API's own schema checking the form.
 */
import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { listCoupons, listItems } from '../../catalog/service.js';
import { linkUrl, shortUrl } from '../../payment-links/mappers.js';
import { createLinkBody, LIMITS } from '../../payment-links/schemas.js';
import {
  cancelPaymentLink,
  createPaymentLink,
  getPaymentLink,
  soldItemOfLink,
  listPaymentLinks,
  type LinkOwner,
} from '../../payment-links/service.js';
import type { AppContext } from '../../shared/context.js';
import { LINK_STATUSES } from '../../shared/enums/link-statuses.js';
import { ConflictError, ValidationError, type FieldErrors } from '../../shared/errors.js';
import { v } from '../../shared/validation/typed.js';
import { apiProblems } from '../api-messages.js';
import type { FormProblems } from '../forms.js';
import type { Mode } from '../lists.js';
import { dashboardLocale } from '../locale.js';
import { confirmPage, sendPage, type Chrome } from '../page.js';
import {
  byApiSchema,
  doneQuery,
  formOf,
  mode,
  pageQuery,
  pathPart,
  queryOf,
  sentList,
  sentText,
} from '../params.js';
import { changing, companyOf, requireChrome, signedIn } from '../session-guard.js';
import { qrPng, qrSvg } from './qr.js';
import {
  EMPTY_LINK_FORM,
  linkFieldLabels,
  linkPage,
  linksPage,
  newLinkPage,
  type LinkFormValues,
} from './views.js';

const PAGE_SIZE = 25;
const LINK_ID = /^[0-9A-Za-z_]{1,64}$/;
const linkId = () => v.string().pattern(LINK_ID);

const listQuery = pageQuery({
  mode: mode().empty(''),
  status: v.enum(LINK_STATUSES).empty(''),
  external_reference: v.string().trim().max(LIMITS.externalReference).empty(''),
  starting_after: linkId().empty(''),
});
const modeQuery = pageQuery({ mode: mode().empty('') });
const modeForm = v.object({ mode: v.required(mode()) }).unknown(true);

const linkForm = v
  .object({
    mode: sentText(),
    item: sentText(),
    coupon_code: sentText(),
    external_reference: sentText(),
    metadata: v.defaulted(v.string().allow('').max(40_000), ''),
    customer_name: sentText(),
    customer_email: sentText(),
    customer_phone: sentText(),
    customer_document: sentText(),
    payment_methods: sentList(),
    pix_expires_in_seconds: sentText(),
    boleto_due_days: sentText(),
    max_installments: sentText(),
    single_use: sentText(),
    expires_at: sentText(),
    success_url: sentText(),
    idempotency_key: sentText(),
  })
  .unknown(true);

const IDEMPOTENCY_KEY = /^[0-9a-f-]{36}$/;

function linkFormOf(req: Request): LinkFormValues {
  const sent = formOf(req, linkForm);
  if (sent.mode !== 'live' && sent.mode !== 'test')
    throw ValidationError.field('mode', 'must be one of [live, test]');
  return {
    ...sent,
    mode: sent.mode,
    single_use: sent.single_use === 'true',
    idempotency_key: IDEMPOTENCY_KEY.test(sent.idempotency_key) ? sent.idempotency_key : randomUUID(),
  };
}

/** A whole number as the API's body carries it; anything else is left to the API's schema to refuse. */
const integerOf = (text: string): number | string | undefined =>
  text === '' ? undefined : /^-?[0-9]{1,9}$/.test(text) ? Number(text) : text;

/** `key=value` lines as the API's metadata map; a line without `=` is refused as the API's field. */
function metadataOf(text: string, errors: FieldErrors): Record<string, string> | undefined {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length === 0) return undefined;
  const map: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf('=');
    if (at <= 0) {
      errors.metadata = ['each line must be key=value'];
      return undefined;
    }
    map[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return map;
}

/** The form as the body of `POST /v1/payment-links`, checked by that endpoint's own schema. */
function linkBodyOf(values: LinkFormValues) {
  const errors: FieldErrors = {};
  const [kind, ...code] = values.item.split(':');
  const itemCode = code.join(':');
  const item =
    values.item === ''
      ? {}
      : kind === 'plan'
        ? { plan_code: itemCode }
        : { offer_code: kind === 'offer' ? itemCode : values.item };
  const customer = {
    name: values.customer_name,
    email: values.customer_email,
    phone: values.customer_phone,
    document: values.customer_document,
  };
  const given = Object.fromEntries(Object.entries(customer).filter(([, value]) => value !== ''));
  const expiresAt = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(values.expires_at)
    ? `${values.expires_at}:00-03:00`
    : values.expires_at;
  const input: Record<string, unknown> = {
    ...item,
    ...(Object.keys(given).length > 0 ? { customer: given } : {}),
    ...(values.external_reference !== '' ? { external_reference: values.external_reference } : {}),
    ...(values.coupon_code !== '' ? { coupon_code: values.coupon_code } : {}),
    single_use: values.single_use,
    ...(expiresAt !== '' ? { expires_at: expiresAt } : {}),
    payment_methods: values.payment_methods,
    ...(values.success_url !== '' ? { success_url: values.success_url } : {}),
  };
  const metadata = metadataOf(values.metadata, errors);
  if (metadata) input.metadata = metadata;
  for (const name of ['pix_expires_in_seconds', 'boleto_due_days', 'max_installments'] as const) {
    const value = integerOf(values[name]);
    if (value !== undefined) input[name] = value;
  }
  try {
    const body = byApiSchema(createLinkBody, input);
    if (Object.keys(errors).length > 0) throw new ValidationError('The form does not fit', errors);
    return body;
  } catch (err) {
    if (err instanceof ValidationError) throw new ValidationError(err.message, { ...errors, ...err.fields });
    throw err;
  }
}

/** The API's field (`customer.email`, `offer_code`, `payment_methods.1`) → the form's. */
function formFieldOf(apiField: string): string {
  if (apiField === 'offer_code' || apiField === 'plan_code') return 'item';
  if (apiField.startsWith('customer.')) return `customer_${apiField.split('.')[1] ?? ''}`;
  if (apiField === 'customer') return 'customer_name';
  return apiField.split('.')[0] ?? apiField;
}

const ownerOf = (chrome: Chrome, shown: Mode): LinkOwner => ({
  companyId: chrome.principal.companyId,
  livemode: shown === 'live',
});

export function linksRoutes(ctx: AppContext): Router {
  const router = Router({ caseSensitive: true });

  router.get('/links', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const { mode: asked, status, external_reference, starting_after } = queryOf(req, listQuery);
    const shown: Mode = asked ?? 'live';
    const found = await listPaymentLinks(ctx.db, ownerOf(chrome, shown), {
      status,
      external_reference,
      starting_after,
      limit: PAGE_SIZE,
    });
    const filter = { mode: shown, status, external_reference };
    const { done } = queryOf(req, doneQuery);
    sendPage(
      res,
      200,
      page,
      linksPage(page, chrome, { links: found.items, hasMore: found.hasMore, filter, done }),
    );
  });

  async function renderForm(
    res: Response,
    chrome: Chrome,
    status: number,
    values: LinkFormValues,
    problems?: FormProblems,
  ): Promise<void> {
    const page = dashboardLocale(res.req);
    const { companyId } = chrome.principal;
    const [offers, plans, coupons] = await Promise.all([
      listItems(ctx.db, 'offer', companyId),
      listItems(ctx.db, 'plan', companyId),
      listCoupons(ctx.db, companyId),
    ]);
    sendPage(res, status, page, newLinkPage(page, chrome, { values, offers, plans, coupons, problems }));
  }

  router.get('/links/new', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const shown: Mode = queryOf(req, modeQuery).mode ?? 'live';
    await renderForm(res, chrome, 200, { ...EMPTY_LINK_FORM, mode: shown, idempotency_key: randomUUID() });
  });

  // The form's idempotency key (drawn when the form was drawn) makes a second submission of the same
  // form the same link, as an API client's retry with its Idempotency-Key.
  router.post('/links', async (req, res) => {
    const chrome = requireChrome(req);
    const page = dashboardLocale(req);
    const values = linkFormOf(req);
    try {
      const body = linkBodyOf(values);
      const created = await createPaymentLink(
        ctx,
        ownerOf(chrome, values.mode),
        body,
        values.idempotency_key,
      );
      res.redirect(303, page.href(`/links/${created.link.id}`, { mode: values.mode, done: 'link_created' }));
    } catch (err) {
      if (err instanceof ValidationError) {
        await renderForm(
          res,
          chrome,
          400,
          values,
          apiProblems(page, err, linkFieldLabels(page), formFieldOf),
        );
        return;
      }
      // The same form sent again after it was changed (the browser's back button): a new form.
      if (err instanceof ConflictError) {
        const problems: FormProblems = new Map([['', page.t.problems.refusals.conflict]]);
        await renderForm(res, chrome, 409, { ...values, idempotency_key: randomUUID() }, problems);
        return;
      }
      throw err;
    }
  });

  /** The link of the address, in the mode the address names (live unless `mode=test`). */
  function scopeOf(req: Request, chrome: Chrome) {
    const shown: Mode = queryOf(req, modeQuery).mode ?? 'live';
    return { ...ownerOf(chrome, shown), linkId: pathPart(linkId(), req.params.id) };
  }
  async function linkOf(req: Request, chrome: Chrome) {
    return getPaymentLink(ctx.db, scopeOf(req, chrome));
  }

  router.get('/links/:id', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    // The link and what it sells, read together (one round).
    const scope = scopeOf(req, chrome);
    const [found, item] = await Promise.all([getPaymentLink(ctx.db, scope), soldItemOfLink(ctx.db, scope)]);
    const url = linkUrl(ctx.config, found.link);
    const { done } = queryOf(req, doneQuery);
    sendPage(
      res,
      200,
      page,
      linkPage(page, chrome, {
        found,
        item,
        url,
        shortUrl: shortUrl(ctx.config, found.link.shortCode),
        qrSvg: await qrSvg(url),
        done,
      }),
    );
  });

  // The QR code as a file to keep: a download named after the link.
  for (const [extension, type] of [
    ['svg', 'image/svg+xml'],
    ['png', 'image/png'],
  ] as const) {
    router.get(`/links/:id/qr.${extension}`, async (req, res) => {
      const chrome = signedIn(req, res);
      if (!chrome) return;
      const found = await linkOf(req, chrome);
      const url = linkUrl(ctx.config, found.link);
      const file = extension === 'svg' ? await qrSvg(url) : await qrPng(url);
      res
        .status(200)
        .set({
          'Content-Type': type,
          'Content-Disposition': `attachment; filename="${found.link.id}.${extension}"`,
          'Cache-Control': 'no-store',
          'X-Content-Type-Options': 'nosniff',
          'Content-Security-Policy': "default-src 'none'",
        })
        .send(file);
    });
  }

  router.get('/links/:id/cancel', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const found = await linkOf(req, chrome);
    const shown: Mode = found.link.livemode ? 'live' : 'test';
    const tl = page.t.links;
    sendPage(
      res,
      200,
      page,
      confirmPage(page, chrome, {
        title: tl.cancelLabel(found.link.id),
        question: tl.cancelQuestion(found.link.id),
        action: `/links/${found.link.id}/cancel`,
        hidden: { mode: shown },
        submit: tl.cancelSubmit,
        back: page.href(`/links/${found.link.id}`, { mode: shown }),
      }),
    );
  });

  router.post('/links/:id/cancel', async (req, res) => {
    const id = pathPart(linkId(), req.params.id);
    const shown = formOf(req, modeForm).mode;
    await cancelPaymentLink(ctx.db, { companyId: companyOf(req), livemode: shown === 'live', linkId: id });
    res.redirect(303, dashboardLocale(req).href(`/links/${id}`, { mode: shown, done: 'link_canceled' }));
  });

  return router;
}
