import { Joi, Segments } from 'celebrate';
import type { CustomHelpers } from 'joi';
import { LINK_STATUSES } from '../shared/db/schema.js';
import { normalizeDocument, normalizeEmail, normalizePhone, type Normalized } from './documents.js';

export const LIMITS = {
  idempotencyKey: 64,
  externalReference: 128,
  metadataPairs: 20,
  metadataKey: 40,
  metadataValue: 500,
  code: 100,
  customerName: 200,
  email: 254,
  maxValidityDays: 90,
  defaultValidityDays: 7,
  listDefault: 20,
  listMax: 100,
} as const;

/** Runs a normalizer inside Joi so the route receives canonical values and errors name the field. */
const normalized =
  (fn: (input: string) => Normalized) =>
  (value: string, helpers: CustomHelpers): string | ReturnType<CustomHelpers['message']> => {
    const result = fn(value);
    return result.ok ? result.value : helpers.message({ custom: result.message });
  };

// ISO 8601 date-time with an explicit offset: a time without one would depend on the server's zone.
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

function isoDateTime(value: string, helpers: CustomHelpers): string | ReturnType<CustomHelpers['message']> {
  const time = ISO_WITH_OFFSET.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) {
    return helpers.message({
      custom: 'must be an ISO 8601 date-time with an offset, e.g. 2030-01-31T23:59:00Z',
    });
  }
  return new Date(time).toISOString();
}

function metadataPairs(value: Record<string, unknown>, helpers: CustomHelpers) {
  const entries = Object.entries(value);
  if (entries.length > LIMITS.metadataPairs) {
    return helpers.message({ custom: `must have at most ${LIMITS.metadataPairs} key/value pairs` });
  }
  for (const [key, item] of entries) {
    if (key.length < 1 || key.length > LIMITS.metadataKey) {
      return helpers.message({
        custom: `keys must be 1 to ${LIMITS.metadataKey} characters ("${key.slice(0, 50)}")`,
      });
    }
    if (NUL.test(key)) return helpers.message({ custom: 'keys must not contain the NUL character (U+0000)' });
    if (typeof item !== 'string') return helpers.message({ custom: `value of "${key}" must be a string` });
    if (NUL.test(item)) {
      return helpers.message({ custom: `value of "${key}" must not contain the NUL character (U+0000)` });
    }
    if (item.length > LIMITS.metadataValue) {
      return helpers.message({
        custom: `value of "${key}" must be at most ${LIMITS.metadataValue} characters`,
      });
    }
  }
  return value;
}

/** PostgreSQL text cannot hold U+0000, so it is refused here, as a 400 naming the field. */
const NUL = /\u0000/;
const text = () =>
  Joi.string()
    .pattern(NUL, { invert: true, name: 'NUL' })
    .messages({ 'string.pattern.invert.name': 'must not contain the NUL character (U+0000)' });

const code = text().trim().min(1).max(LIMITS.code);

/** Shape of POST /v1/payment-links; rules that need the database (offer, coupon) live in the service. */
export const createLinkBody = Joi.object({
  offer_code: code,
  plan_code: code,
  customer: Joi.object({
    name: text().trim().min(1).max(LIMITS.customerName).allow(null),
    email: Joi.string().trim().max(LIMITS.email).email({ tlds: false }).custom(normalizeEmail).allow(null),
    phone: Joi.string().trim().max(40).custom(normalized(normalizePhone)).allow(null),
    document: Joi.string().trim().max(40).custom(normalized(normalizeDocument)).allow(null),
  }).allow(null),
  external_reference: text().min(1).max(LIMITS.externalReference).allow(null),
  metadata: Joi.object().unknown(true).custom(metadataPairs),
  coupon_code: code.allow(null),
  single_use: Joi.boolean().strict(),
  expires_at: Joi.string().trim().max(64).custom(isoDateTime),
})
  // No body at all reads as an empty one, so the caller hears which fields are missing.
  .default({})
  .unknown(false);

export interface CreateLinkBody {
  offer_code?: string;
  plan_code?: string;
  customer?: {
    name?: string | null;
    email?: string | null;
    phone?: string | null;
    document?: string | null;
  } | null;
  external_reference?: string | null;
  metadata?: Record<string, string>;
  coupon_code?: string | null;
  single_use?: boolean;
  /** Normalised to UTC ISO by the schema. */
  expires_at?: string;
}

export const idempotencyHeaders = Joi.object({
  'idempotency-key': Joi.string().min(1).max(LIMITS.idempotencyKey),
}).unknown(true);

export const listLinksQuery = Joi.object({
  external_reference: text().min(1).max(LIMITS.externalReference),
  status: Joi.string().valid(...LINK_STATUSES),
  limit: Joi.number().integer().min(1).max(LIMITS.listMax).default(LIMITS.listDefault),
  starting_after: text().min(1).max(64),
}).unknown(false);

export interface ListLinksQuery {
  external_reference?: string;
  status?: (typeof LINK_STATUSES)[number];
  limit: number;
  starting_after?: string;
}

export const createLinkRules = {
  [Segments.HEADERS]: idempotencyHeaders,
  [Segments.BODY]: createLinkBody,
};
export const listLinksRules = { [Segments.QUERY]: listLinksQuery };
