/**
 * What the Mercado Pago stand-in sends and takes on the wire, typed: the subset of MP's documented
 * fields it fills. Field names are MP's (snake_case); a field MP has and the stand-in leaves out is
 * simply absent here, so a service typed against these will not read something only a stand-in has.
 */

/** MP's error body, on the Payments API and most others (`cause` may be empty). */
export interface MpError {
  message: string;
  error: string;
  status: number;
  cause: Array<{ code: number | string; description: string; data: string | null }>;
}

/** The OAuth token endpoint's error body. */
export interface MpOAuthError {
  error:
    | 'invalid_request'
    | 'invalid_client'
    | 'invalid_grant'
    | 'unsupported_grant_type'
    | 'invalid_scope'
    | 'unauthorized_client';
  message: string;
  status: number;
  cause: never[];
}

/** `POST /oauth/token`'s answer for both grants. */
/**
 * `POST /oauth/token`'s 200 (mercadopago/openapi by-site/MLB/spec3.yaml, createOAuthToken). The
 * "Renew access token" guide's refresh example answers without `user_id`, `public_key` and
 * `live_mode`, so those are the authorization_code grant's only.
 */
export interface MpTokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  user_id?: number;
  refresh_token: string;
  public_key?: string;
  live_mode?: boolean;
}

export type MpPaymentStatus =
  | 'pending'
  | 'approved'
  | 'authorized'
  | 'in_process'
  | 'in_mediation'
  | 'rejected'
  | 'cancelled'
  | 'refunded'
  | 'charged_back';

export interface MpIdentification {
  type: string;
  number: string;
}

export interface MpAddress {
  zip_code: string;
  street_name: string;
  street_number: string;
  neighborhood: string;
  city: string;
  federal_unit: string;
}

/** The payer as a payment is created with it (MP echoes what it was sent). */
export interface MpPayer {
  email: string;
  first_name?: string;
  last_name?: string;
  identification?: MpIdentification;
  address?: MpAddress;
  [field: string]: unknown;
}

/** A card payment's card, as MP shows it: never the full number. */
export interface MpPaymentCard {
  id: null;
  first_six_digits: string;
  last_four_digits: string;
  expiration_month: number;
  expiration_year: number;
  date_created: string;
  date_last_updated: string;
  cardholder: { name: string; identification: { type: string | null; number: string | null } };
}

/** Pix: what the buyer pays from (the copia e cola, its QR code as a PNG, MP's page for it). */
export interface MpPixTransactionData {
  qr_code: string;
  qr_code_base64: string;
  ticket_url: string;
  transaction_id: string | null;
  e2e_id: string | null;
  bank_transfer_id: number | null;
  financial_institution: string | null;
}

export interface MpTransactionDetails {
  net_received_amount: number;
  total_paid_amount: number;
  installment_amount: number;
  overpaid_amount: number;
  external_resource_url: string | null;
  payment_method_reference_id: string | null;
  financial_institution: string | null;
  /** Boleto only: the 47-digit linha digitável. */
  digitable_line?: string;
  /** Boleto only: the 44-digit barcode. */
  barcode?: { content: string };
}

export interface MpRefund {
  id: number;
  payment_id: number;
  amount: number;
  metadata: Record<string, unknown>;
  source: { id: string; name: string; type: 'collector' | 'admin' };
  date_created: string;
  unique_sequence_number: string | null;
  refund_mode: 'standard';
  adjustment_amount: number;
  status: 'approved';
  reason: string | null;
  labels: string[];
}

export interface MpPayment {
  id: number;
  date_created: string;
  date_approved: string | null;
  date_last_updated: string;
  date_of_expiration: string | null;
  money_release_date: string | null;
  operation_type: 'regular_payment';
  issuer_id: string | null;
  payment_method_id: string;
  payment_type_id: 'credit_card' | 'debit_card' | 'bank_transfer' | 'ticket';
  payment_method: { id: string; type: string; issuer_id: string | null };
  status: MpPaymentStatus;
  status_detail: string;
  currency_id: 'BRL';
  description: string | null;
  live_mode: boolean;
  collector_id: number;
  payer: MpPayer;
  /** MP turns the keys of the metadata it is sent into snake_case (`orderCode` comes back `order_code`). */
  metadata: Record<string, unknown>;
  additional_info: Record<string, unknown>;
  external_reference: string | null;
  transaction_amount: number;
  transaction_amount_refunded: number;
  installments: number;
  transaction_details: MpTransactionDetails;
  fee_details: MpFeeDetail[];
  captured: boolean;
  binary_mode: boolean;
  statement_descriptor: string | null;
  notification_url: string | null;
  processing_mode: 'aggregator';
  card: MpPaymentCard | Record<string, never>;
  refunds: MpRefund[];
  point_of_interaction:
    { type: 'OPENPLATFORM'; sub_type: null; transaction_data: MpPixTransactionData } | Record<string, never>;
}

/** `GET /v1/payments/search`. */
export interface MpSearchResult<T> {
  paging: { total: number; limit: number; offset: number };
  results: T[];
}

export interface MpChargeback {
  id: string;
  /** Objects, as mercadopago/openapi by-site/MLB/spec3.yaml (getChargeback) types them. */
  payments: Array<{ id: number }>;
  currency: 'BRL';
  amount: number;
  coverage_applied: boolean | null;
  coverage_eligible: boolean;
  documentation_required: boolean;
  documentation_status: 'pending' | 'review_pending' | 'valid' | 'not_supplied';
  date_documentation_deadline: string;
  date_created: string;
  date_last_updated: string;
  live_mode: boolean;
}

/** `POST /v1/card_tokens`'s answer (what `mp.fields.createCardToken` resolves with). */
export interface MpCardToken {
  id: string;
  public_key: string;
  card_id: null;
  status: 'active';
  date_used: string | null;
  luhn_validation: boolean;
  live_mode: boolean;
  require_esc: boolean;
  card_number_length: number;
  security_code_length: number;
  first_six_digits: string;
  last_four_digits: string;
  expiration_month: number;
  expiration_year: number;
  date_created: string;
  date_last_updated: string;
  date_due: string;
  cardholder: { name: string; identification: { type?: string; number?: string } };
}

/** One entry of `GET /v1/payment_methods` and of `/v1/payment_methods/search`'s results. */
export interface MpPaymentMethod {
  id: string;
  name: string;
  payment_type_id: 'credit_card' | 'debit_card' | 'bank_transfer' | 'ticket';
  status: 'active';
  secure_thumbnail: string;
  thumbnail: string;
  deferred_capture: 'supported' | 'unsupported';
  settings: Array<{
    card_number: { length: number; validation: 'standard' | 'none' };
    bin: { pattern: string; installments_pattern: string; exclusion_pattern: string | null };
    security_code: { length: number; card_location: 'back' | 'front'; mode: 'mandatory' };
  }>;
  additional_info_needed: string[];
  min_allowed_amount: number;
  max_allowed_amount: number;
  accreditation_time: number;
  financial_institutions: never[];
  processing_modes: ['aggregator'];
  issuer?: { id: number; name: string; default: boolean };
}

/** The body of a webhook notification MP POSTs to a payment's notification_url. */
/** MP's older IPN call (Webhooks guide, IPN): `?topic=&id=` on the URL, a resource address in the body. */
export interface MpIpnNotification {
  resource: string;
  topic: 'payment' | 'chargebacks';
}

export interface MpNotification {
  action: 'payment.created' | 'payment.updated' | 'chargeback.created';
  api_version: 'v1';
  data: { id: string };
  date_created: string;
  id: number;
  live_mode: boolean;
  /** Chargebacks come as `topic_chargebacks_wh` (the "Chargebacks" topic) or `chargebacks`. */
  type: 'payment' | 'chargebacks' | 'topic_chargebacks_wh';
  user_id: string;
}

/**
 * One fee MP takes from a payment (Payments API, `fee_details`): `mercadopago_fee` (MP's own),
 * `application_fee` (the marketplace's share), `financing_fee`…; `fee_payer` `collector` is the seller.
 */
export interface MpFeeDetail {
  type: 'mercadopago_fee' | 'application_fee';
  amount: number;
  fee_payer: 'collector' | 'payer';
}
