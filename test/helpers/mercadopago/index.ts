/**
 * # Mercado Pago stand-in (tests only)
 *
 * A loopback HTTP server that answers as Mercado Pago does, for the service's tests: OAuth (one MP
 * application, many seller accounts), the Payments API (Pix, boleto, cards), refunds, chargebacks,
 * card tokens, signed webhook notifications, and MercadoPago.js with Secure Fields for Chromium.
 * Each part follows MP's public reference; server.ts and sdk.ts name the pages.
 *
 * ## Start it
 *
 * ```ts
 * const mp = await MercadoPagoStandIn.start({ redirectUris: [callbackUrl] }); // 127.0.0.1, free port
 * startService({ ...mp.env(), MERCADOPAGO_CLIENT_ID: mp.clientId, ... }); // your own variable names
 * // MERCADOPAGO_API_URL = mp.apiUrl   → POST {api}/oauth/token, {api}/v1/payments…
 * // MERCADOPAGO_AUTH_URL = mp.authUrl → {auth}/authorization?client_id&response_type=code&platform_id=mp&state&redirect_uri[&code_challenge&code_challenge_method=S256]
 * // MERCADOPAGO_SDK_URL = mp.sdkUrl   → <script src> of MercadoPago.js
 * after(() => mp.close());
 * ```
 *
 * ## Connect a seller
 *
 * - `mp.createSeller(partial?)` → a `Seller` (`userId` is MP's `user_id` / `collector_id`).
 * - OAuth as the service does it: the service builds the authorization URL; the test calls
 *   `await mp.authorize(thatUrl, seller)` (the seller clicks "allow") and gets
 *   `redirect_uri?code=TG-…&state=…` to GET on the service; the service then POSTs
 *   `/oauth/token`. A browser can follow the URL too: add `&stand_in_seller=<userId>` for a 302.
 * - Or skip OAuth: `mp.issueTokens(seller)` → the `/oauth/token` answer (`access_token`,
 *   `refresh_token`, `public_key`, `user_id`, `expires_in`…).
 * - Refresh tokens rotate: the one used is spent (`400 {error: 'invalid_grant'}` if reused).
 *   `mp.expireAccessToken(userId)`: the access token answers `401 {message: 'invalid_token'}`,
 *   the refresh token still works. `mp.revokeGrant(userId)`: both stop working.
 *
 * ## Payments
 *
 * `POST /v1/payments` needs `Authorization: Bearer <seller's access token>` and
 * `X-Idempotency-Key` (the same key from the same seller returns the first answer; no second
 * payment). Pix → `pending`/`pending_waiting_transfer` with a BR Code, its PNG and a ticket_url;
 * `bolbradesco` → `pending`/`pending_waiting_payment` with a valid Bradesco line and barcode (needs
 * the payer's name, CPF/CNPJ and address); cards need a token from `mp.createCardToken(seller,
 * {holder: 'APRO'|'OTHE'|'CONT'|'CALL'|'FUND'|'SECU'|…})` or from MercadoPago.js in a browser.
 * MP's behaviours to mind: metadata keys come back snake_cased; dates carry MP's -04:00 offset;
 * another seller's payment is a 404.
 *
 * Then, from the test, what happens on MP's side (each awaits the notification's delivery):
 * `approve`, `reject`, `cancel` (a Pix/boleto expired), `refund` (by the seller on MP),
 * `chargeback`; `{notify: false}` loses the notification; `redeliver(notificationId)` sends it again;
 * `settled()` waits for notifications sent by API calls (e.g. `payment.created`).
 *
 * Notifications are POSTed to the payment's notification_url plus `?data.id=<id>&type=payment`
 * (or `type=chargebacks`) with `x-request-id` and `x-signature: ts=<s>,v1=<hex>`, the HMAC-SHA256
 * with `mp.webhookSecret` of `id:<data.id lower-cased>;request-id:<x-request-id>;ts:<ts>;`.
 *
 * ## Faults and inspection
 *
 * `mp.failNext({method?, path: /regex/}, fault, times = 1)` with `{status: 500|502|503}`,
 * `{kind: 'reset'}`, `{kind: 'delay', ms}`, `{kind: 'reset-after-create'}` (handled, answer lost)
 * or `{kind: 'delay-after-create', ms}`. `mp.requests` logs every request (Authorization shown as
 * `user_id=<id>`; secrets and card numbers masked); `mp.payment(id)`, `mp.paymentsOf(userId)`,
 * `mp.chargebacks(paymentId?)`, `mp.notifications`, `mp.errors` (the stand-in's own bugs).
 *
 * ## MercadoPago.js
 *
 * `<script src="${mp.sdkUrl}">` defines `window.MercadoPago`: `new MercadoPago(publicKey,
 * {locale})`, `getPaymentMethods({bin})`, `fields.create('cardNumber'|'expirationDate'|'securityCode', {placeholder})
 * .mount(containerId)` (an iframe from the stand-in's origin), `.on('binChange'|'validityChange'|
 * 'ready'|…, cb)`, `.update({settings: {length}})`, `.unmount()`, and
 * `fields.createCardToken({cardholderName, identificationType, identificationNumber})` →
 * `Promise<{id, first_six_digits, last_four_digits, …}>`, rejected with `[{cause, message}]`.
 */
export {
  MercadoPagoStandIn,
  type ControlOptions,
  type Fault,
  type FaultMatcher,
  type LoggedRequest,
  type NotificationDelivery,
  type Outcome,
  type Seller,
  type SentNotification,
  type StandInOptions,
  type TestCard,
} from './server.js';
export type {
  MpCardToken,
  MpChargeback,
  MpError,
  MpNotification,
  MpOAuthError,
  MpPayment,
  MpPaymentMethod,
  MpPaymentStatus,
  MpPixTransactionData,
  MpRefund,
  MpSearchResult,
  MpTokenResponse,
} from './wire.js';
