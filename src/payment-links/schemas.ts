import type { CustomHelpers, ErrorReport } from 'joi';
import { LINK_STATUSES } from '../shared/enums/link-statuses.js';
import { PAYMENT_METHODS } from '../shared/enums/payment-methods.js';
import { CAMPAIGN_KEYS, TRACKING_VALUE_MAX } from '../shared/tracking.js';
import { references } from '../shared/validation/references.js';
import { v, type Output } from '../shared/validation/typed.js';
import { customerFields, text } from './customer.js';

export const LIMITS = {
  idempotencyKey: 64,
  externalReference: 128,
  metadataPairs: 20,
  metadataKey: 40,
  metadataValue: 500,
  code: 100,
  linkId: 64,
  maxValidityDays: 90,
  defaultValidityDays: 7,
  listDefault: 20,
  listMax: 100,
} as const;

/** What a link lets its checkout offer, with the API's bounds and defaults (also the columns' defaults). */
export const CHECKOUT_OPTIONS = {
  paymentMethods: PAYMENT_METHODS,
  pixExpiresInSeconds: { min: 60, max: 1_209_600, default: 1800 },
  boletoDueDays: { min: 1, max: 30, default: 3 },
  maxInstallments: { min: 1, max: 12, default: 1 },
  successUrlMaxLength: 2048,
} as const;

const code = () => text().trim().min(1).max(LIMITS.code);

/**
 * An absolute http(s) URL without credentials, as WHATWG URL reads it. Whether plain http is allowed
 * depends on the deployment (https only in production): the service checks that.
 */
function absoluteHttpUrl(value: string, helpers: CustomHelpers): string | ErrorReport {
  // WHATWG URL would quietly drop whitespace and read `https:host`; the stored value must be the URL.
  if (!/^https?:\/\//i.test(value) || /[\s\x00-\x1f\x7f]/.test(value))
    return helpers.message({ custom: 'must be an absolute http or https URL without spaces' });
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return helpers.message({ custom: 'must be an absolute URL' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return helpers.message({ custom: 'must be an http or https URL' });
  if (url.username !== '' || url.password !== '')
    return helpers.message({ custom: 'must not carry credentials' });
  return value;
}

/** A bounded integer option of the checkout, documented with its default (no Joi default: see single_use). */
const bounded = (bounds: { min: number; max: number; default: number }, description: string) =>
  v
    .strictInteger()
    .min(bounds.min)
    .max(bounds.max)
    .description(`${description} ${bounds.min}–${bounds.max}; default ${bounds.default}`)
    .meta({ default: bounds.default });

/**
 * `tracking`: the campaign a link sent by message belongs to. Each value at most TRACKING_VALUE_MAX
 * characters, trimmed when stored; U+0000 is refused (as in all free text), other control characters are
 * dropped when stored; blank means unknown.
 */
const campaignTracking = v
  .object(
    Object.fromEntries(CAMPAIGN_KEYS.map((key) => [key, campaignValue()])) as Record<
      (typeof CAMPAIGN_KEYS)[number],
      ReturnType<typeof campaignValue>
    >,
  )
  .description(
    'The campaign this link belongs to, as an ad address would carry it (`utm_*`, `src`, `sck`). ' +
      'Sent back in every event of its orders under `data.purchase.tracking`; a value the checkout ' +
      'address carries takes precedence',
  );
function campaignValue() {
  // Trimmed when stored (src/shared/tracking.ts), so a blank value is accepted and kept as unknown.
  return v.nullable(text().allow('').max(TRACKING_VALUE_MAX));
}

/** Shape of POST /v1/payment-links; rules that need the database (offer, coupon) live in the service. */
export const createLinkBody = v.required(
  v
    .object({
      offer_code: code()
        .description('Code of an active offer of your company')
        .meta(references({ operationId: 'listOffers', property: 'code', where: { status: 'active' } })),
      plan_code: code()
        .description('Code of an active plan of your company')
        .meta(references({ operationId: 'listPlans', property: 'code', where: { status: 'active' } })),
      customer: v
        .nullable(
          v.object({
            name: v.nullable(customerFields.name()),
            email: v.nullable(customerFields.email()),
            phone: v.nullable(customerFields.phone()),
            document: v.nullable(customerFields.document()),
          }),
        )
        .description('Prefills the checkout'),
      external_reference: v.nullable(text().min(1).max(LIMITS.externalReference)),
      tracking: v.nullable(campaignTracking),
      metadata: v.record(
        text().min(1).max(LIMITS.metadataKey),
        text().allow('').max(LIMITS.metadataValue),
        LIMITS.metadataPairs,
      ),
      coupon_code: v
        .nullable(code())
        .description('An active coupon of your company')
        .meta(references({ operationId: 'listCoupons', property: 'code', where: { status: 'active' } })),
      // No Joi default: the idempotency hash of a request is taken over what the caller sent.
      single_use: v.strictBoolean().meta({ default: true }),
      expires_at: v
        .dateTime()
        .description(
          `With an offset; in the future and at most ${LIMITS.maxValidityDays} days ahead. ` +
            `Default: ${LIMITS.defaultValidityDays} days after creation`,
        ),
      payment_methods: v
        .array(v.enum(PAYMENT_METHODS))
        .min(1)
        .unique()
        .description('What the checkout offers: a non-empty set of methods. Default: all of them')
        .meta({ default: [...PAYMENT_METHODS] }),
      pix_expires_in_seconds: bounded(
        CHECKOUT_OPTIONS.pixExpiresInSeconds,
        'How long a Pix code is valid after the buyer chooses Pix (then the order is abandoned):',
      ),
      boleto_due_days: bounded(
        CHECKOUT_OPTIONS.boletoDueDays,
        'Days from the order to the boleto’s due date (the order is abandoned 3 days after it):',
      ),
      max_installments: bounded(
        CHECKOUT_OPTIONS.maxInstallments,
        'Most card instalments the checkout offers, without interest:',
      ),
      success_url: v
        .nullable(v.string().max(CHECKOUT_OPTIONS.successUrlMaxLength).custom(absoluteHttpUrl))
        .description(
          'Where the buyer goes once the payment is confirmed, with `link_id` and `order_code` added to ' +
            'its query. An absolute URL without credentials; https in production. Default: null (the ' +
            'checkout shows its own confirmation)',
        )
        .meta({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' }),
    })
    .xor('offer_code', 'plan_code')
    .messages({
      'object.missing': 'one of offer_code or plan_code is required',
      'object.xor': 'send offer_code or plan_code, not both',
    })
    .description('Exactly one of `offer_code` and `plan_code`. Unknown fields are rejected.'),
);

export type CreateLinkBody = Output<typeof createLinkBody>;

export const idempotencyHeaders = v.headers({
  'idempotency-key': v
    .string()
    .min(1)
    .max(LIMITS.idempotencyKey)
    .description(
      'Scoped to your company and mode. The same key with the same body returns the original link (200, ' +
        '`Idempotent-Replayed: true`); with another body, 409.',
    ),
});

export const listLinksQuery = v.object({
  external_reference: text().min(1).max(LIMITS.externalReference).description('Exact match'),
  status: v.enum(LINK_STATUSES),
  limit: v.defaulted(v.integer().min(1).max(LIMITS.listMax), LIMITS.listDefault),
  starting_after: text()
    .min(1)
    .max(LIMITS.linkId)
    .description('`id` of the last link of the previous page')
    .meta(references({ operationId: 'listPaymentLinks', property: 'id' })),
});

export type ListLinksQuery = Output<typeof listLinksQuery>;

/** A link id in a path: anything else than a link of the caller is a 404, never a 400. */
export const linkIdParams = v.object({
  id: v
    .required(v.string())
    .description('Link id')
    .meta(references({ operationId: 'listPaymentLinks', property: 'id' })),
});

/** Only an active link can be simulated. */
export const activeLinkIdParams = v.object({
  id: v
    .required(v.string())
    .description('Id of an active test link')
    .meta(references({ operationId: 'listPaymentLinks', property: 'id', where: { status: 'active' } })),
});
