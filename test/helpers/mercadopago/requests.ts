/**
 * The shape of every request the stand-in takes from a seller's server, written from Mercado
 * Pago's public reference, not from the service's code. A request that does not fit is answered
 * 400 in MP's error shape (`{message, error: 'bad_request', status, cause: [{code, description}]}`)
 * before anything is done. Where the reference is silent the rule is strict: keys it does not name
 * are refused, strings are bounded, numbers keep two decimals.
 *
 * References (cited per rule below):
 * - [SPEC] github:mercadopago/openapi by-site/MLB/spec3.yaml (operations createPayment,
 *   searchPayments, createRefund, getChargeback, createOAuthToken; schemas PaymentRequest,
 *   PaymentPayer, Identification, Address, RefundRequest).
 * - [SDK] github:mercadopago/sdk-nodejs src/clients/payment/create/types.ts (PaymentCreateRequest,
 *   PayerRequest, AddressRequest) and src/clients/payment/commonTypes.ts.
 * - [PIX] "Receiving payment by Pix", mercadopago.com.br/developers/en/docs/checkout-api-payments/
 *   integration-configuration/integrate-pix.
 * - [BOLETO] "Boleto" integration, mercadopago.com.br/developers/en/docs/checkout-api-payments/
 *   integration-configuration/integrate-boleto.
 * - [OAUTH] "Create and refresh token" (reference) and the "Renew access token" guide,
 *   mercadopago.com.br/developers/en/docs/security/oauth.
 */
import Joi from 'joi';
import type { MpError } from './wire.js';

/** A version 1–8 UUID: [SPEC] types X-Idempotency-Key of createPayment and createRefund `format: uuid`. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** [SPEC] `date-time` with the offset MP's examples carry (`2024-12-31T23:59:59.000-03:00`). */
const dateTime = () =>
  Joi.string()
    .pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?([+-]\d{2}:\d{2}|Z)$/)
    .custom((value: string, helpers) =>
      Number.isNaN(Date.parse(value)) ? helpers.error('any.invalid') : value,
    );

/** Reais: [SPEC] "decimal, not cents", `minimum: 0.01`; two decimals (strict: BRL has two). */
const reais = (min: number) =>
  Joi.number()
    .min(min)
    .max(99_999_999.99)
    .custom((value: number, helpers) =>
      Math.abs(value * 100 - Math.round(value * 100)) < 1e-6 ? value : helpers.error('number.precision'),
    );

/** Text MP stores; bounded where the reference gives no length (strict). */
const text = (max: number) => Joi.string().min(1).max(max);

/** [SPEC] Identification: CPF or CNPJ for Brazil, "no formatting"; CNPJ also in its 2026 letters form. */
const identification = Joi.object({
  type: Joi.string().valid('CPF', 'CNPJ').required(),
  number: Joi.when('type', {
    is: 'CPF',
    then: Joi.string().pattern(/^\d{11}$/),
    otherwise: Joi.string().pattern(/^[0-9A-Z]{12}\d{2}$/),
  }).required(),
});

/** [SDK] AddressRequest (Address + neighborhood, city, federal_unit), as [BOLETO] asks for a payer. */
const payerAddress = Joi.object({
  // [SPEC] Address example `01310-100`: eight digits, the hyphen optional.
  zip_code: Joi.string()
    .pattern(/^\d{5}-?\d{3}$/)
    .required(),
  street_name: text(200).required(),
  street_number: text(20).required(),
  neighborhood: text(100).required(),
  city: text(100).required(),
  federal_unit: Joi.string()
    .pattern(/^[A-Z]{2}$/)
    .required(),
});

/** [SPEC] PaymentPayer (`email` required) with [SDK] PayerRequest's names. */
const payer = Joi.object({
  email: Joi.string().email({ tlds: false }).max(254).required(),
  first_name: text(100),
  last_name: text(100),
  identification,
  address: payerAddress,
});

/** [SDK] PaymentCreateRequest's keys the stand-in knows; any other key is refused (strict). */
const paymentBody = Joi.object({
  transaction_amount: reais(0.01).required(),
  description: text(256),
  // [SPEC] "Your internal order or reference ID. Max 256 chars."
  external_reference: text(256),
  // [SPEC] `format: uri`; an http(s) address the stand-in can call back.
  notification_url: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .max(500),
  payer: payer.required(),
  // [SPEC] "Free key-value object for your own internal data".
  metadata: Joi.object().unknown(true),
  payment_method_id: Joi.string()
    .pattern(/^[a-z_]{2,30}$/)
    .required(),
  date_of_expiration: dateTime(),
  token: Joi.string().pattern(/^[0-9a-f]{32}$/),
  // [SPEC] `installments: integer, minimum: 1`; Brazil's cards take at most 12.
  installments: Joi.number().integer().min(1).max(12),
  // [SPEC] types it a string, [SDK] a number: either, digits only.
  issuer_id: Joi.alternatives(Joi.string().pattern(/^\d{1,20}$/), Joi.number().integer().min(1)),
  // [SPEC] "Max 22 chars."
  statement_descriptor: text(22),
  // [SPEC] `application_fee: number` (marketplace fee), taken out of the seller's amount.
  application_fee: reais(0),
  binary_mode: Joi.boolean(),
  capture: Joi.boolean(),
})
  .when(Joi.object({ payment_method_id: Joi.valid('pix') }).unknown(), {
    // [PIX] the amount, payer e-mail and method; no card fields.
    then: Joi.object({ token: Joi.forbidden(), installments: Joi.forbidden(), issuer_id: Joi.forbidden() }),
  })
  .when(Joi.object({ payment_method_id: Joi.valid('bolbradesco', 'pec') }).unknown(), {
    // [BOLETO] a registered boleto needs the payer's names, document and address.
    then: Joi.object({
      payer: Joi.object({
        first_name: Joi.required(),
        last_name: Joi.required(),
        identification: Joi.required(),
        address: Joi.required(),
      }),
      token: Joi.forbidden(),
      installments: Joi.forbidden(),
      issuer_id: Joi.forbidden(),
    }),
  })
  .when(Joi.object({ payment_method_id: Joi.invalid('pix', 'bolbradesco', 'pec') }).unknown(), {
    // Cards ([SPEC] createPayment: "generate a card token client-side"): a token and instalments.
    then: Joi.object({
      token: Joi.required(),
      installments: Joi.required(),
      date_of_expiration: Joi.forbidden(),
    }),
  });

/** [SPEC] RefundRequest: `amount` alone, omitted for a full refund. */
const refundBody = Joi.object({ amount: reais(0.01) });

/** [SPEC] searchPayments' parameters (`sort` and `criteria` required); no others (strict). */
const searchQuery = Joi.object({
  sort: Joi.string()
    .valid('date_created', 'date_approved', 'date_last_updated', 'money_release_date', 'id')
    .required(),
  criteria: Joi.string().valid('asc', 'desc').required(),
  external_reference: text(256),
  range: Joi.string().valid('date_created', 'date_last_updated', 'money_release_date'),
  begin_date: Joi.string(),
  end_date: Joi.string(),
  status: Joi.string(),
  limit: Joi.number().integer().min(1).max(1000),
  offset: Joi.number().integer().min(0),
});

/** [SPEC] createOAuthToken's body, by grant ([OAUTH]: PKCE verifier with the code). */
const oauthBody = Joi.object({
  client_id: Joi.string()
    .pattern(/^\d{1,20}$/)
    .required(),
  client_secret: Joi.string().min(1).max(200).required(),
  grant_type: Joi.string().valid('authorization_code', 'refresh_token').required(),
  code: Joi.when('grant_type', {
    is: 'authorization_code',
    then: text(200).required(),
    otherwise: Joi.forbidden(),
  }),
  redirect_uri: Joi.when('grant_type', {
    is: 'authorization_code',
    then: Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .required(),
    otherwise: Joi.forbidden(),
  }),
  code_verifier: Joi.when('grant_type', {
    is: 'authorization_code',
    then: Joi.string().pattern(/^[A-Za-z0-9._~-]{43,128}$/),
    otherwise: Joi.forbidden(),
  }),
  refresh_token: Joi.when('grant_type', {
    is: 'refresh_token',
    then: text(200).required(),
    otherwise: Joi.forbidden(),
  }),
});

/** What a request that does not fit gets: MP's 400 with one cause per problem. */
function refusal(error: Joi.ValidationError): { status: 400; body: MpError } {
  const cause = error.details.map((d) => ({
    code: 1,
    description: `${d.path.join('.') || 'body'}: ${d.message.replace(/"/g, '')}`,
    data: null,
  }));
  return {
    status: 400,
    body: { message: cause[0]?.description ?? 'invalid request', error: 'bad_request', status: 400, cause },
  };
}

function check(schema: Joi.Schema, value: unknown): { status: 400; body: MpError } | null {
  const { error } = schema.validate(value, { abortEarly: false, convert: false });
  return error ? refusal(error) : null;
}

/** The problems of a request the stand-in takes, or null when it fits the reference. */
export const requestProblems = {
  /** `POST /v1/payments`: the body, and X-Idempotency-Key a UUID ([SPEC]). */
  createPayment: (body: unknown, idempotencyKey: string | undefined) =>
    idempotencyKeyProblem(idempotencyKey) ?? check(paymentBody.required(), body),
  /** `POST /v1/payments/{id}/refunds`. */
  createRefund: (body: unknown, idempotencyKey: string | undefined) =>
    idempotencyKeyProblem(idempotencyKey) ?? check(refundBody, body ?? {}),
  /** `GET /v1/payments/search`: one value per parameter. */
  searchPayments: (query: Record<string, string | string[]>) => check(searchQuery, numbersOf(query)),
  /** `POST /oauth/token`. */
  oauthToken: (body: unknown) => check(oauthBody.required(), body),
};

function idempotencyKeyProblem(key: string | undefined): { status: 400; body: MpError } | null {
  if (key === undefined || UUID.test(key)) return null;
  const description = 'X-Idempotency-Key must be a UUID';
  return {
    status: 400,
    body: {
      message: description,
      error: 'bad_request',
      status: 400,
      cause: [{ code: 1, description, data: null }],
    },
  };
}

/** A query as the reference types it: `limit` and `offset` integers, everything else one string. */
function numbersOf(query: Record<string, string | string[]>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(query).map(([key, value]) => [
      key,
      Array.isArray(value)
        ? value
        : (key === 'limit' || key === 'offset') && /^\d+$/.test(value)
          ? Number(value)
          : value,
    ]),
  );
}
