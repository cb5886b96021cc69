/**
 * The parts of Mercado Pago's REST API the adapter uses (Payments, Refunds, Chargebacks), called with
 * one company's access token. Each answer is read through a schema that keeps only what the service
 * uses; anything else MP sends is ignored. MP's own Node SDK pins its base address as a constant,
 * while a deployment (and every test) sets MERCADOPAGO_API_URL, so the calls are made with undici.
 */
import Joi from 'joi';
import type { MercadoPagoConfig } from '../../shared/config.js';
import { callJson, UpstreamUnavailableError, type JsonAnswer } from '../../shared/http/json-client.js';

/** A payment as MP describes it (the fields read here). */
export interface MpPayment {
  id: string;
  status: string;
  statusDetail: string | null;
  externalReference: string | null;
  transactionAmount: number;
  paymentMethodId: string | null;
  paymentTypeId: string | null;
  dateApproved: string | null;
  dateOfExpiration: string | null;
  qrCode: string | null;
  digitableLine: string | null;
  barcode: string | null;
  ticketUrl: string | null;
  /** MP's `fee_details`: what it takes from the payment, and who pays each (`collector`: the seller). */
  feeDetails: Array<{ type: string; amount: number; feePayer: string | null }>;
}

const nullableString = () => Joi.string().allow(null, '');
const idSchema = () => Joi.alternatives(Joi.number().integer(), Joi.string().max(64)).required();

const paymentSchema = Joi.object({
  id: idSchema(),
  status: Joi.string().max(40).required(),
  status_detail: nullableString(),
  external_reference: nullableString(),
  transaction_amount: Joi.number().required(),
  payment_method_id: nullableString(),
  payment_type_id: nullableString(),
  date_approved: nullableString(),
  date_of_expiration: nullableString(),
  point_of_interaction: Joi.object({
    transaction_data: Joi.object({ qr_code: nullableString() }).unknown(true).allow(null),
  })
    .unknown(true)
    .allow(null),
  transaction_details: Joi.object({
    digitable_line: nullableString(),
    external_resource_url: nullableString(),
    barcode: Joi.object({ content: nullableString() }).unknown(true).allow(null),
  })
    .unknown(true)
    .allow(null),
  barcode: Joi.object({ content: nullableString() }).unknown(true).allow(null),
  fee_details: Joi.array()
    .items(
      Joi.object({
        type: Joi.string().max(60).required(),
        amount: Joi.number().required(),
        fee_payer: nullableString(),
      }).unknown(true),
    )
    .allow(null),
}).unknown(true);

interface RawPayment {
  id: number | string;
  status: string;
  status_detail?: string | null;
  external_reference?: string | null;
  transaction_amount: number;
  payment_method_id?: string | null;
  payment_type_id?: string | null;
  date_approved?: string | null;
  date_of_expiration?: string | null;
  point_of_interaction?: { transaction_data?: { qr_code?: string | null } | null } | null;
  transaction_details?: {
    digitable_line?: string | null;
    external_resource_url?: string | null;
    barcode?: { content?: string | null } | null;
  } | null;
  barcode?: { content?: string | null } | null;
  fee_details?: Array<{ type: string; amount: number; fee_payer?: string | null }> | null;
}

/** MP answered 2xx with something that is not what its reference describes: treated as no answer. */
class UnreadableAnswerError extends UpstreamUnavailableError {}

const emptyToNull = (value: string | null | undefined): string | null =>
  value === undefined || value === null || value === '' ? null : value;

function readPayment(body: unknown): MpPayment {
  const { value, error } = paymentSchema.validate(body, { stripUnknown: false });
  if (error) throw new UnreadableAnswerError(`a payment MP sent could not be read: ${error.message}`);
  const raw = value as RawPayment;
  return {
    id: String(raw.id),
    status: raw.status,
    statusDetail: emptyToNull(raw.status_detail),
    externalReference: emptyToNull(raw.external_reference),
    transactionAmount: raw.transaction_amount,
    paymentMethodId: emptyToNull(raw.payment_method_id),
    paymentTypeId: emptyToNull(raw.payment_type_id),
    dateApproved: emptyToNull(raw.date_approved),
    dateOfExpiration: emptyToNull(raw.date_of_expiration),
    qrCode: emptyToNull(raw.point_of_interaction?.transaction_data?.qr_code),
    digitableLine: emptyToNull(raw.transaction_details?.digitable_line),
    // MP's SDKs type it under transaction_details (sdk-nodejs src/clients/payment/commonTypes.ts,
    // TransactionDetails.barcode); older answers put it at the top level.
    barcode: emptyToNull(raw.transaction_details?.barcode?.content) ?? emptyToNull(raw.barcode?.content),
    ticketUrl: emptyToNull(raw.transaction_details?.external_resource_url),
    feeDetails: (raw.fee_details ?? []).map((f) => ({
      type: f.type,
      amount: f.amount,
      feePayer: emptyToNull(f.fee_payer),
    })),
  };
}

/** MP refused the request (4xx other than 401): its message and cause codes, for the caller to word. */
export class MpRefusedError extends Error {
  override name = 'MpRefusedError';
  constructor(
    readonly status: number,
    message: string,
    readonly causes: Array<{ code: string; description: string }>,
  ) {
    super(message);
  }
}

/** The token was not accepted (expired or revoked): refresh it and ask once more. */
export class MpUnauthorizedError extends Error {
  override name = 'MpUnauthorizedError';
}

const causeSchema = Joi.array()
  .items(
    Joi.object({
      code: Joi.alternatives(Joi.number(), Joi.string()),
      description: Joi.string().allow(''),
    }).unknown(true),
  )
  .single();

/** MP's error shape `{message, error, status, cause: [{code, description}]}`, read leniently. */
function refusalOf(answer: JsonAnswer): MpRefusedError {
  const body = (typeof answer.body === 'object' && answer.body !== null ? answer.body : {}) as Record<
    string,
    unknown
  >;
  const message = typeof body.message === 'string' ? body.message : `HTTP ${answer.status}`;
  const { value } = causeSchema.validate(body.cause ?? []);
  const causes = Array.isArray(value)
    ? (value as Array<{ code?: number | string; description?: string }>).map((c) => ({
        code: String(c.code ?? ''),
        description: c.description ?? '',
      }))
    : [];
  return new MpRefusedError(answer.status, message.slice(0, 300), causes);
}

/** 2xx: the body; 401: unauthorized; 5xx: no answer worth reading; other 4xx: a refusal. */
function checked(answer: JsonAnswer, what: string): unknown {
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  if (answer.status === 401) throw new MpUnauthorizedError(`${what}: the access token was not accepted`);
  if (answer.status >= 500 || answer.status === 429)
    throw new UpstreamUnavailableError(`${what}: HTTP ${answer.status}`);
  throw refusalOf(answer);
}

export interface MpCall {
  mp: MercadoPagoConfig;
  accessToken: string;
}

const auth = (call: MpCall, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${call.accessToken}`,
  ...extra,
});

export async function createPayment(
  call: MpCall,
  body: Record<string, unknown>,
  idempotencyKey: string,
): Promise<MpPayment> {
  const answer = await callJson({
    method: 'POST',
    url: `${call.mp.apiUrl}/v1/payments`,
    headers: auth(call, { 'x-idempotency-key': idempotencyKey }),
    json: body,
    timeoutMs: call.mp.timeoutMs,
  });
  return readPayment(checked(answer, 'POST /v1/payments'));
}

export async function getPayment(call: MpCall, id: string): Promise<MpPayment> {
  const answer = await callJson({
    method: 'GET',
    url: `${call.mp.apiUrl}/v1/payments/${encodeURIComponent(id)}`,
    headers: auth(call),
    timeoutMs: call.mp.timeoutMs,
  });
  return readPayment(checked(answer, 'GET /v1/payments/{id}'));
}

/** The account's payments made for one external reference, newest first. */
export async function searchPayments(call: MpCall, externalReference: string): Promise<MpPayment[]> {
  const url = new URL(`${call.mp.apiUrl}/v1/payments/search`);
  url.search = new URLSearchParams({
    external_reference: externalReference,
    sort: 'date_created',
    criteria: 'desc',
    limit: '10',
  }).toString();
  const answer = await callJson({
    method: 'GET',
    url: url.href,
    headers: auth(call),
    timeoutMs: call.mp.timeoutMs,
  });
  const body = checked(answer, 'GET /v1/payments/search');
  const { value, error } = Joi.object({ results: Joi.array().items(Joi.any()).required() })
    .unknown(true)
    .validate(body);
  if (error) throw new UnreadableAnswerError(`a payment search MP sent could not be read: ${error.message}`);
  return (value as { results: unknown[] }).results.map(readPayment);
}

/** A full refund of a payment; the same key asked twice refunds once. */
export async function refundPayment(call: MpCall, id: string, idempotencyKey: string): Promise<void> {
  const answer = await callJson({
    method: 'POST',
    url: `${call.mp.apiUrl}/v1/payments/${encodeURIComponent(id)}/refunds`,
    headers: auth(call, { 'x-idempotency-key': idempotencyKey }),
    json: {},
    timeoutMs: call.mp.timeoutMs,
  });
  checked(answer, 'POST /v1/payments/{id}/refunds');
}

/** The payments a chargeback is about. */
export async function getChargebackPayments(call: MpCall, id: string): Promise<string[]> {
  const answer = await callJson({
    method: 'GET',
    url: `${call.mp.apiUrl}/v1/chargebacks/${encodeURIComponent(id)}`,
    headers: auth(call),
    timeoutMs: call.mp.timeoutMs,
  });
  const body = checked(answer, 'GET /v1/chargebacks/{id}');
  // The MLB reference types `payments` as objects (mercadopago/openapi by-site/MLB/spec3.yaml,
  // getChargeback); older answers list the ids alone. Both are read.
  const payment = Joi.alternatives(idSchema(), Joi.object({ id: idSchema() }).unknown(true));
  const { value, error } = Joi.object({ payments: Joi.array().items(payment).required() })
    .unknown(true)
    .validate(body);
  if (error) throw new UnreadableAnswerError(`a chargeback MP sent could not be read: ${error.message}`);
  return (value as { payments: Array<number | string | { id: number | string }> }).payments.map((p) =>
    String(typeof p === 'object' ? p.id : p),
  );
}
