import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { checkBoleto, readStaticPix } from '../checkout/helpers.js';
import { eventually } from '../helpers/eventually.js';
import {
  MercadoPagoStandIn,
  type MpChargeback,
  type MpError,
  type MpOAuthError,
  type MpPayment,
  type MpRefund,
  type MpSearchResult,
  type MpTokenResponse,
  type Seller,
} from '../helpers/mercadopago/index.js';

interface Reply<T> {
  status: number;
  body: T;
}

interface CallOptions {
  token?: string;
  body?: unknown;
  /** Sent as application/x-www-form-urlencoded instead of JSON. */
  form?: Record<string, string>;
  key?: string;
  signal?: AbortSignal;
}

/** One HTTP call to the stand-in, as the service will make them (plain fetch, JSON). */
async function call<T>(method: string, url: string, options: CallOptions = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.key) headers['x-idempotency-key'] = options.key;
  let body: string | undefined;
  if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const res = await fetch(url, { method, headers, body, signal: options.signal, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/** A seller's webhook receiver on loopback: records each notification, answers `status()`. */
async function receiver(status: () => number = () => 200) {
  const received: Array<{ url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body });
      res.writeHead(status()).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/mercadopago?company=7&source_news=webhooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A notification's signature checked as MP's "Validate notification origin" page tells a receiver
 * to: `ts` and `v1` from x-signature, the manifest `id:{data.id};request-id:{x-request-id};ts:{ts};`
 * with data.id from the query (lower-cased), HMAC-SHA256 with the webhook secret.
 */
function signatureVerifies(
  notification: { url: string; headers: http.IncomingHttpHeaders },
  secret: string,
): boolean {
  const header = String(notification.headers['x-signature'] ?? '');
  const parts = new Map(
    header.split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const dataId = new URL(notification.url, 'http://receiver').searchParams.get('data.id') ?? '';
  const manifest = `id:${dataId.toLowerCase()};request-id:${String(notification.headers['x-request-id'])};ts:${parts.get('ts')};`;
  const expected = createHmac('sha256', secret).update(manifest).digest();
  const given = Buffer.from(parts.get('v1') ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The QR code in a PNG, decoded. */
function decodeQr(base64: string): string | null {
  const image = PNG.sync.read(Buffer.from(base64, 'base64'));
  return jsQR.default(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? null;
}

/** An instant as MP takes a date_of_expiration, in Brasília time (-03:00). */
function brasilia(instant: Date): string {
  return new Date(instant.getTime() - 3 * 3600_000).toISOString().replace('Z', '-03:00');
}

const BOLETO_PAYER = {
  email: 'maria@example.com',
  first_name: 'Maria',
  last_name: 'Compradora',
  identification: { type: 'CPF', number: '52998224725' },
  address: {
    zip_code: '01310-100',
    street_name: 'Avenida Paulista',
    street_number: '1000',
    neighborhood: 'Bela Vista',
    city: 'São Paulo',
    federal_unit: 'SP',
  },
};

describe('Mercado Pago stand-in', function () {
  let mp: MercadoPagoStandIn;
  const redirectUri = 'http://127.0.0.1:9/panel/integrations/mercadopago/callback';

  before(async () => {
    mp = await MercadoPagoStandIn.start({ redirectUris: [redirectUri] });
  });
  after(async () => {
    await mp.settled();
    await mp.close();
    expect(mp.errors, 'errors inside the stand-in').to.deep.equal([]);
  });

  const api = (path: string): string => `${mp.apiUrl}${path}`;

  function authorizationUrl(params: Record<string, string>): string {
    const url = new URL(`${mp.authUrl}/authorization`);
    for (const [key, value] of Object.entries({
      client_id: mp.clientId,
      response_type: 'code',
      platform_id: 'mp',
      redirect_uri: redirectUri,
      ...params,
    }))
      url.searchParams.set(key, value);
    return url.toString();
  }

  /** A seller connected through the whole OAuth flow. */
  async function connected(): Promise<{ seller: Seller; tokens: MpTokenResponse }> {
    const seller = mp.createSeller();
    const back = new URL(await mp.authorize(authorizationUrl({ state: 's' }), seller));
    const tokens = await call<MpTokenResponse>('POST', api('/oauth/token'), {
      body: {
        grant_type: 'authorization_code',
        client_id: mp.clientId,
        client_secret: mp.clientSecret,
        code: back.searchParams.get('code'),
        redirect_uri: redirectUri,
      },
    });
    expect(tokens.status).to.equal(200);
    return { seller, tokens: tokens.body };
  }

  const pix = (token: string, key: string, extra: Record<string, unknown> = {}) =>
    call<MpPayment>('POST', api('/v1/payments'), {
      token,
      key,
      body: {
        transaction_amount: 123.45,
        payment_method_id: 'pix',
        payer: { email: 'buyer@example.com' },
        ...extra,
      },
    });

  const card = <T = MpPayment>(token: string, cardToken: string, extra: Record<string, unknown> = {}) =>
    call<T>('POST', api('/v1/payments'), {
      token,
      key: randomUUID(),
      body: {
        transaction_amount: 250,
        payment_method_id: 'visa',
        token: cardToken,
        installments: 3,
        payer: { email: 'buyer@example.com' },
        ...extra,
      },
    });

  describe('OAuth', () => {
    it('exchanges a PKCE-bound code once, then rotates the refresh token on each refresh', async () => {
      const seller = mp.createSeller({ nickname: 'LOJA_DA_ANA' });
      const verifier = randomBytes(48).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const redirect = await mp.authorize(
        authorizationUrl({ state: 'csrf-123', code_challenge: challenge, code_challenge_method: 'S256' }),
        seller,
      );
      const back = new URL(redirect);
      expect(`${back.origin}${back.pathname}`).to.equal(redirectUri);
      expect(back.searchParams.get('state')).to.equal('csrf-123');
      const code = back.searchParams.get('code') ?? '';
      expect(code).to.match(/^TG-[0-9a-f]+-\d+$/);

      const exchange = (extra: Record<string, string>) =>
        call<MpTokenResponse & MpOAuthError>('POST', api('/oauth/token'), {
          form: {
            grant_type: 'authorization_code',
            client_id: mp.clientId,
            client_secret: mp.clientSecret,
            code,
            redirect_uri: redirectUri,
            ...extra,
          },
        });
      expect((await exchange({ code_verifier: 'x'.repeat(43) })).body).to.include({
        error: 'invalid_grant',
        status: 400,
      });
      expect((await exchange({})).body.error, 'no verifier for a PKCE code').to.equal('invalid_grant');
      expect(
        (await exchange({ code_verifier: verifier, redirect_uri: `${redirectUri}/other` })).body.error,
      ).to.equal('invalid_grant');
      expect((await exchange({ code_verifier: verifier, client_secret: 'wrong' })).body.error).to.equal(
        'invalid_client',
      );

      const first = await exchange({ code_verifier: verifier });
      expect(first.status).to.equal(200);
      expect(first.body).to.include({
        token_type: 'Bearer',
        expires_in: 15_552_000,
        scope: 'offline_access read write',
        user_id: seller.userId,
        live_mode: true,
      });
      expect(first.body.access_token).to.match(/^APP_USR-/);
      expect(first.body.public_key).to.match(/^APP_USR-/);
      expect(first.body.refresh_token).to.match(/^TG-/);
      const again = await exchange({ code_verifier: verifier });
      expect(again.status, 'a code is single-use').to.equal(400);
      expect(again.body.error).to.equal('invalid_grant');

      const me = await call<{ id: number; nickname: string }>('GET', api('/users/me'), {
        token: first.body.access_token,
      });
      expect(me.body).to.include({ id: seller.userId, nickname: 'LOJA_DA_ANA' });

      const refresh = (refreshToken: string) =>
        call<MpTokenResponse & MpOAuthError>('POST', api('/oauth/token'), {
          body: {
            grant_type: 'refresh_token',
            client_id: mp.clientId,
            client_secret: mp.clientSecret,
            refresh_token: refreshToken,
          },
        });
      const second = await refresh(first.body.refresh_token);
      expect(second.status).to.equal(200);
      // The refresh answers the tokens alone, as MP's "Renew access token" example.
      expect(second.body).to.have.all.keys(
        'access_token',
        'token_type',
        'expires_in',
        'scope',
        'refresh_token',
      );
      expect(second.body.refresh_token).to.not.equal(first.body.refresh_token);
      expect(second.body.access_token).to.not.equal(first.body.access_token);
      const stale = await refresh(first.body.refresh_token);
      expect(stale.status, 'the refresh token used is spent').to.equal(400);
      expect(stale.body).to.include({ error: 'invalid_grant', status: 400 });
      expect((await refresh(second.body.refresh_token)).status).to.equal(200);
    });

    it('refuses authorization queries MP refuses, and serves the consent screen a browser follows', async () => {
      const seller = mp.createSeller();
      const refused: Array<Record<string, string>> = [
        { client_id: '123' },
        { response_type: 'token' },
        { redirect_uri: 'http://127.0.0.1:9/elsewhere' },
        { code_challenge: 'short', code_challenge_method: 'S256' },
      ];
      for (const bad of refused)
        try {
          await mp.authorize(authorizationUrl(bad), seller);
          expect.fail(`accepted ${JSON.stringify(bad)}`);
        } catch (err) {
          expect(String(err)).to.match(/refuses the authorization/);
        }

      const screen = await fetch(authorizationUrl({ state: 'abc' }));
      expect(screen.status).to.equal(200);
      expect(await screen.text()).to.include(`stand_in_seller=${seller.userId}`);
      const followed = await fetch(
        authorizationUrl({ state: 'abc', stand_in_seller: String(seller.userId) }),
        {
          redirect: 'manual',
        },
      );
      expect(followed.status).to.equal(302);
      const location = new URL(followed.headers.get('location') ?? '');
      expect(location.searchParams.get('state')).to.equal('abc');
      expect(location.searchParams.get('code')).to.match(new RegExp(`^TG-[0-9a-f]+-${seller.userId}$`));
    });

    it('answers 401 invalid_token to an expired access token while its refresh token still works; a revoked grant ends both', async () => {
      const { seller, tokens } = await connected();
      const me = (token: string) => call<MpError>('GET', api('/users/me'), { token });
      expect((await me(tokens.access_token)).status).to.equal(200);
      mp.expireAccessToken(seller.userId);
      const expired = await me(tokens.access_token);
      expect(expired.status).to.equal(401);
      expect(expired.body.message).to.equal('invalid_token');
      const refreshed = await call<MpTokenResponse>('POST', api('/oauth/token'), {
        body: {
          grant_type: 'refresh_token',
          client_id: mp.clientId,
          client_secret: mp.clientSecret,
          refresh_token: tokens.refresh_token,
        },
      });
      expect(refreshed.status).to.equal(200);
      expect((await me(refreshed.body.access_token)).status).to.equal(200);

      mp.revokeGrant(seller.userId);
      expect((await me(refreshed.body.access_token)).status).to.equal(401);
      const refused = await call<MpOAuthError>('POST', api('/oauth/token'), {
        body: {
          grant_type: 'refresh_token',
          client_id: mp.clientId,
          client_secret: mp.clientSecret,
          refresh_token: refreshed.body.refresh_token,
        },
      });
      expect(refused.body).to.include({ error: 'invalid_grant', status: 400 });
      expect((await me('APP_USR-not-a-token')).status).to.equal(401);
    });
  });

  describe('payments', () => {
    let seller: Seller;
    let token: string;
    before(async () => {
      ({
        seller,
        tokens: { access_token: token },
      } = await connected());
    });

    it('gives the same key from the same seller the same payment, and refuses a payment without a key', async () => {
      const key = randomUUID();
      const first = await pix(token, key);
      const second = await pix(token, key);
      expect(first.status).to.equal(201);
      expect(second.status).to.equal(201);
      expect(second.body.id).to.equal(first.body.id);
      expect(mp.paymentsOf(seller.userId).filter((p) => p.id === first.body.id)).to.have.length(1);
      expect((await pix(token, randomUUID())).body.id, 'another key, another payment').to.not.equal(
        first.body.id,
      );

      const keyless = await call<MpError>('POST', api('/v1/payments'), {
        token,
        body: { transaction_amount: 10, payment_method_id: 'pix', payer: { email: 'a@b.co' } },
      });
      expect(keyless.status).to.equal(400);
      expect(keyless.body.cause[0]?.code).to.equal(4292);

      const logged = mp.requests.filter((r) => r.headers['x-idempotency-key'] === key);
      expect(logged.map((r) => r.replayed)).to.deep.equal([false, true]);
      expect(logged[0]?.headers.authorization).to.equal(`user_id=${seller.userId}`);
    });

    it('creates the payment when its answer is lost, and the retry with the same key gets it', async () => {
      const before = mp.paymentsOf(seller.userId).length;
      const key = randomUUID();
      mp.failNext({ method: 'POST', path: /^\/v1\/payments$/ }, { kind: 'reset-after-create' });
      let lost: unknown;
      try {
        await pix(token, key, { external_reference: 'order-lost-answer' });
      } catch (err) {
        lost = err;
      }
      expect(lost, 'the connection dropped').to.be.instanceOf(Error);
      const created = mp.paymentsOf(seller.userId);
      expect(created).to.have.length(before + 1);
      const retry = await pix(token, key, { external_reference: 'order-lost-answer' });
      expect(retry.status).to.equal(201);
      expect(retry.body.id).to.equal(created.at(-1)?.id);
      expect(mp.paymentsOf(seller.userId)).to.have.length(before + 1);

      // A slow answer the client gives up on (once the payment exists): the payment stays.
      const slowKey = randomUUID();
      mp.failNext({ path: /^\/v1\/payments$/ }, { kind: 'delay-after-create', ms: 5000 });
      const giveUp = new AbortController();
      const slow = call('POST', api('/v1/payments'), {
        token,
        key: slowKey,
        body: { transaction_amount: 5, payment_method_id: 'pix', payer: { email: 'slow@example.com' } },
        signal: giveUp.signal,
      }).then(
        () => 'answered',
        (err: unknown) => err,
      );
      await eventually(
        () => (mp.paymentsOf(seller.userId).length === before + 2 ? true : undefined),
        5000,
        'the slow payment recorded',
        10,
      );
      giveUp.abort();
      expect(await slow, 'the client gave up').to.be.instanceOf(Error);
      const slowRetry = await pix(token, slowKey);
      expect(slowRetry.body.id).to.equal(mp.paymentsOf(seller.userId).at(-1)?.id);
      expect(slowRetry.body.transaction_amount, "the first request's payment, not this body").to.equal(5);
      await mp.settled();
    });

    it('answers injected 503s and resets without creating anything', async () => {
      const before = mp.paymentsOf(seller.userId).length;
      mp.failNext({ method: 'POST', path: /^\/v1\/payments$/ }, { status: 503 });
      const unavailable = await pix(token, randomUUID());
      expect(unavailable.status).to.equal(503);
      mp.failNext({ method: 'POST', path: /^\/v1\/payments$/ }, { kind: 'reset' });
      let reset: unknown;
      try {
        await pix(token, randomUUID());
      } catch (err) {
        reset = err;
      }
      expect(reset).to.be.instanceOf(Error);
      expect(mp.paymentsOf(seller.userId)).to.have.length(before);
      expect(mp.requests.filter((r) => r.fault !== null).map((r) => r.fault)).to.include.members([
        'status 503',
        'reset',
      ]);
    });

    it('validates like MP, with its error shape', async () => {
      const attempt = (body: Record<string, unknown>) =>
        call<MpError>('POST', api('/v1/payments'), { token, key: randomUUID(), body });
      const cases: Array<[Record<string, unknown>, number]> = [
        [{ payment_method_id: 'pix', payer: { email: 'a@b.co' } }, 4002],
        [{ transaction_amount: '10.00', payment_method_id: 'pix', payer: { email: 'a@b.co' } }, 4003],
        [{ transaction_amount: 0, payment_method_id: 'pix', payer: { email: 'a@b.co' } }, 4037],
        [{ transaction_amount: 10, payer: { email: 'a@b.co' } }, 4001],
        [{ transaction_amount: 10, payment_method_id: 'pix', payer: { email: 'not-an-email' } }, 4050],
        [
          {
            transaction_amount: 10,
            payment_method_id: 'pix',
            payer: { email: 'a@b.co' },
            notification_url: 'nope',
          },
          4020,
        ],
      ];
      for (const [body, code] of cases) {
        const refused = await attempt(body);
        expect(refused.status, JSON.stringify(body)).to.equal(400);
        expect(refused.body).to.include({ error: 'bad_request', status: 400 });
        expect(refused.body.cause[0]?.code, JSON.stringify(body)).to.equal(code);
      }
    });

    it('makes a Pix whose BR Code carries the amount and whose PNG is that code', async () => {
      const created = await pix(token, randomUUID(), {
        external_reference: 'order-pix-1',
        description: 'Curso de violão',
        metadata: { orderCode: 'ABC', companyId: 7 },
      });
      const payment = created.body;
      expect(payment).to.include({
        status: 'pending',
        status_detail: 'pending_waiting_transfer',
        payment_method_id: 'pix',
        payment_type_id: 'bank_transfer',
        transaction_amount: 123.45,
        external_reference: 'order-pix-1',
        description: 'Curso de violão',
        collector_id: seller.userId,
        currency_id: 'BRL',
        live_mode: true,
        date_approved: null,
      });
      expect(payment.metadata, 'MP snake-cases metadata keys').to.deep.equal({
        order_code: 'ABC',
        company_id: 7,
      });
      expect(Date.parse(payment.date_of_expiration ?? '') - Date.parse(payment.date_created)).to.equal(
        24 * 3600_000,
      );
      if (!('transaction_data' in payment.point_of_interaction)) throw new Error('no Pix transaction data');
      const data = payment.point_of_interaction.transaction_data;
      const read = readStaticPix(data.qr_code);
      expect(read.transactionAmount).to.equal(123.45);
      expect(read.txid).to.equal(`mpqrinter${payment.id}`);
      expect(decodeQr(data.qr_code_base64)).to.equal(data.qr_code);
      expect((await fetch(data.ticket_url)).status).to.equal(200);

      const due = brasilia(new Date(Date.now() + 2 * 3600_000));
      const timed = await pix(token, randomUUID(), { date_of_expiration: due });
      expect(timed.body.date_of_expiration, 'kept as sent').to.equal(due);
    });

    it('makes a boleto only with the payer MP requires, with a line and barcode validators accept', async () => {
      const boleto = <T = MpPayment>(payer: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        call<T>('POST', api('/v1/payments'), {
          token,
          key: randomUUID(),
          body: { transaction_amount: 89.9, payment_method_id: 'bolbradesco', payer, ...extra },
        });
      expect((await boleto({ ...BOLETO_PAYER, address: undefined })).status).to.equal(400);
      expect((await boleto({ ...BOLETO_PAYER, first_name: undefined })).status).to.equal(400);
      const badCpf = await boleto<MpError>({
        ...BOLETO_PAYER,
        identification: { type: 'CPF', number: '52998224724' },
      });
      expect(badCpf.body.cause[0]?.code).to.equal(2067);

      const dueInstant = new Date(Date.now() + 5 * 24 * 3600_000);
      const due = brasilia(dueInstant);
      const created = await boleto(BOLETO_PAYER, { date_of_expiration: due });
      expect(created.status).to.equal(201);
      const payment = created.body;
      expect(payment).to.include({
        status: 'pending',
        status_detail: 'pending_waiting_payment',
        payment_type_id: 'ticket',
        date_of_expiration: due,
      });
      const line = payment.transaction_details.digitable_line ?? '';
      expect(line).to.match(/^\d{47}$/);
      expect(payment.transaction_details.barcode?.content).to.match(/^\d{44}$/);
      expect(line.slice(0, 3), 'Bradesco').to.equal('237');
      checkBoleto(
        {
          digitable_line: line,
          barcode: payment.transaction_details.barcode?.content ?? '',
          due_date: due.slice(0, 10),
        },
        { cents: 8990 },
      );
      expect((await fetch(payment.transaction_details.external_resource_url ?? '')).status).to.equal(200);

      const undated = await boleto(BOLETO_PAYER);
      expect(Date.parse(undated.body.date_of_expiration ?? '')).to.be.greaterThan(
        Date.now() + 2 * 24 * 3600_000,
      );
    });

    it('charges cards by their token once, with the outcome MP sandbox gives each cardholder name', async () => {
      const outcomes: Array<[string, string, string]> = [
        ['APRO', 'approved', 'accredited'],
        ['OTHE', 'rejected', 'cc_rejected_other_reason'],
        ['FUND', 'rejected', 'cc_rejected_insufficient_amount'],
        ['SECU', 'rejected', 'cc_rejected_bad_filled_security_code'],
        ['CALL', 'rejected', 'cc_rejected_call_for_authorize'],
        ['CONT', 'in_process', 'pending_contingency'],
      ];
      for (const [holder, status, detail] of outcomes) {
        const paid = await card(token, mp.createCardToken(seller, { holder }));
        expect(paid.status, holder).to.equal(201);
        expect(paid.body, holder).to.include({
          status,
          status_detail: detail,
          payment_type_id: 'credit_card',
          installments: 3,
        });
      }

      // What MercadoPago.js does in the browser: POST /v1/card_tokens with the seller's public key.
      const publicKey = mp.publicKey(seller.userId);
      const tokenized = await call<
        { id: string; first_six_digits: string; last_four_digits: string } & MpError
      >('POST', api(`/v1/card_tokens?public_key=${publicKey}`), {
        body: {
          card_number: '5031433215406351',
          expiration_month: 11,
          expiration_year: 2030,
          security_code: '123',
          cardholder: { name: 'APRO', identification: { type: 'CPF', number: '12345678909' } },
        },
      });
      expect(tokenized.status).to.equal(201);
      expect(tokenized.body).to.include({ first_six_digits: '503143', last_four_digits: '6351' });
      const wrongBrand = await card<MpError>(token, tokenized.body.id);
      expect(wrongBrand.status, 'visa for a Mastercard').to.equal(400);
      const paid = await card(token, tokenized.body.id, { payment_method_id: 'master', issuer_id: '24' });
      expect(paid.body).to.include({ status: 'approved', issuer_id: '24', collector_id: seller.userId });
      expect(paid.body.card).to.deep.include({ first_six_digits: '503143', last_four_digits: '6351' });
      expect(paid.body.date_approved).to.be.a('string');
      expect(paid.body.transaction_details.installment_amount).to.equal(83.33);

      const reused = await card<MpError>(token, tokenized.body.id, { payment_method_id: 'master' });
      expect(reused.status, 'a token is single-use').to.equal(400);
      expect(reused.body.cause[0]?.code).to.equal(3003);
    });

    it("refuses tokens that are not this seller's, unknown, or of a card MP would not tokenize", async () => {
      const other = await connected();
      const foreign = await card<MpError>(token, mp.createCardToken(other.seller));
      expect(foreign.status).to.equal(400);
      expect(foreign.body.cause[0]?.code).to.equal(3003);
      const unknown = await card<MpError>(token, 'ffffffffffffffffffffffffffffffff');
      expect(unknown.body.cause[0]?.code).to.equal(2006);
      const tokenize = (publicKey: string, cardNumber: string) =>
        call<MpError>('POST', api(`/v1/card_tokens?public_key=${publicKey}`), {
          body: {
            card_number: cardNumber,
            expiration_month: 11,
            expiration_year: 2030,
            security_code: '123',
            cardholder: { name: 'APRO' },
          },
        });
      const luhn = await tokenize(mp.publicKey(seller.userId), '4235647728025683');
      expect(luhn.status).to.equal(400);
      expect(luhn.body.cause[0]?.code).to.equal('E301');
      expect(
        (await tokenize('APP_USR-00000000-0000-0000-0000-000000000000', '4235647728025682')).status,
      ).to.equal(404);
    });

    it("shows a payment only to its seller, and searches only the seller's own", async () => {
      const other = await connected();
      const mine = await pix(token, randomUUID(), { external_reference: 'order-search' });
      await pix(token, randomUUID(), { external_reference: 'order-search', transaction_amount: 2 });
      await pix(other.tokens.access_token, randomUUID(), { external_reference: 'order-search' });

      expect((await call<MpPayment>('GET', api(`/v1/payments/${mine.body.id}`), { token })).body.id).to.equal(
        mine.body.id,
      );
      const hidden = await call<MpError>('GET', api(`/v1/payments/${mine.body.id}`), {
        token: other.tokens.access_token,
      });
      expect(hidden.status, "another seller's token").to.equal(404);
      expect(hidden.body).to.include({ message: 'Payment not found', error: 'not_found', status: 404 });
      expect(hidden.body.cause[0]?.code).to.equal(2000);

      const found = await call<MpSearchResult<MpPayment>>(
        'GET',
        api(
          '/v1/payments/search?external_reference=order-search&sort=date_created&criteria=desc&limit=1&offset=0',
        ),
        { token },
      );
      expect(found.body.paging).to.deep.equal({ total: 2, limit: 1, offset: 0 });
      expect(found.body.results.map((p) => p.collector_id)).to.deep.equal([seller.userId]);
      const page2 = await call<MpSearchResult<MpPayment>>(
        'GET',
        api('/v1/payments/search?external_reference=order-search&sort=id&criteria=asc&limit=1&offset=1'),
        { token },
      );
      expect(page2.body.results[0]?.transaction_amount).to.equal(2);
    });

    it('refunds approved payments only, in parts or whole, once per key', async () => {
      const payment = (await pix(token, randomUUID(), { transaction_amount: 100 })).body;
      const refundOf = <T = MpRefund>(key: string, body: Record<string, unknown>) =>
        call<T>('POST', api(`/v1/payments/${payment.id}/refunds`), { token, key, body });
      const early = await refundOf<MpError>(randomUUID(), {});
      expect(early.status, 'a pending payment').to.equal(400);
      expect(early.body.cause[0]?.code).to.equal(3005);

      await mp.approve(payment.id);
      const key = randomUUID();
      const part = await refundOf(key, { amount: 30 });
      expect(part.status).to.equal(201);
      expect(part.body).to.include({ payment_id: payment.id, amount: 30, status: 'approved' });
      expect((await refundOf(key, { amount: 30 })).body.id, 'same key, same refund').to.equal(part.body.id);
      expect(mp.payment(payment.id)).to.include({
        status: 'approved',
        status_detail: 'partially_refunded',
        transaction_amount_refunded: 30,
      });
      expect((await refundOf(randomUUID(), { amount: 80 })).status, 'more than is left').to.equal(400);
      const rest = await refundOf(randomUUID(), {});
      expect(rest.body.amount).to.equal(70);
      expect(mp.payment(payment.id)).to.include({ status: 'refunded', status_detail: 'refunded' });
      expect(mp.payment(payment.id)?.refunds.map((r) => r.amount)).to.deep.equal([30, 70]);
      await mp.settled();
    });

    it('tells card brands from a BIN, to a public key', async () => {
      const publicKey = mp.publicKey(seller.userId);
      const brand = async (bin: string) =>
        (
          await call<MpSearchResult<{ id: string; payment_type_id: string; issuer?: { id: number } }>>(
            'GET',
            api(
              `/v1/payment_methods/search?public_key=${publicKey}&bins=${bin}&marketplace=NONE&status=active`,
            ),
          )
        ).body.results[0];
      expect(await brand('42356477')).to.deep.include({ id: 'visa', payment_type_id: 'credit_card' });
      expect((await brand('50314332'))?.id).to.equal('master');
      expect((await brand('37536515'))?.id).to.equal('amex');
      expect((await brand('50677667'))?.id).to.equal('elo');
      expect((await brand('45763100'))?.id, 'an Elo BIN that starts with 4').to.equal('elo');
      expect((await brand('42356477'))?.issuer?.id).to.be.a('number');
    });
  });

  describe('notifications', () => {
    let seller: Seller;
    let token: string;
    let hook: Awaited<ReturnType<typeof receiver>>;
    let answer = 200;
    before(async () => {
      ({
        seller,
        tokens: { access_token: token },
      } = await connected());
      hook = await receiver(() => answer);
    });
    after(() => hook.close());

    it('signs each notification so a receiver verifies it with the webhook secret', async () => {
      const created = await pix(token, randomUUID(), { notification_url: hook.url });
      await mp.settled();
      const first = hook.received.at(-1);
      if (!first) throw new Error('no payment.created notification');
      const url = new URL(first.url, 'http://receiver');
      expect(url.pathname).to.equal('/webhooks/mercadopago');
      expect(url.searchParams.get('company'), "the notification_url's own query is kept").to.equal('7');
      expect(url.searchParams.get('data.id')).to.equal(String(created.body.id));
      expect(url.searchParams.get('type')).to.equal('payment');
      expect(first.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
      expect(first.headers['x-signature']).to.match(/^ts=\d{10},v1=[0-9a-f]{64}$/);
      expect(signatureVerifies(first, mp.webhookSecret)).to.equal(true);
      expect(signatureVerifies(first, 'another secret')).to.equal(false);
      const body: unknown = JSON.parse(first.body);
      expect(body).to.deep.include({
        action: 'payment.created',
        api_version: 'v1',
        data: { id: String(created.body.id) },
        live_mode: true,
        type: 'payment',
        user_id: String(seller.userId),
      });

      const paid = await mp.approve(created.body.id);
      expect(paid.payment).to.include({ status: 'approved', status_detail: 'accredited' });
      expect(paid.delivery?.status).to.equal(200);
      const second = hook.received.at(-1);
      if (!second) throw new Error('no payment.updated notification');
      expect(JSON.parse(second.body)).to.include({ action: 'payment.updated' });
      expect(signatureVerifies(second, mp.webhookSecret)).to.equal(true);
    });

    it('returns what the receiver answered, redelivers on demand, and can lose a notification', async () => {
      const created = await pix(token, randomUUID(), { notification_url: hook.url });
      await mp.settled();
      answer = 500;
      const failed = await mp.approve(created.body.id);
      expect(failed.delivery?.status).to.equal(500);
      answer = 200;
      const again = await mp.redeliver(failed.delivery?.notificationId ?? 0);
      expect(again.status).to.equal(200);
      expect(again.requestId).to.not.equal(failed.delivery?.requestId);

      const quiet = await pix(token, randomUUID(), { notification_url: hook.url });
      await mp.settled();
      const count = hook.received.length;
      const lost = await mp.cancel(quiet.body.id, { notify: false });
      expect(lost.payment).to.include({ status: 'cancelled', status_detail: 'expired' });
      expect(lost.delivery).to.equal(null);
      expect(hook.received).to.have.length(count);
    });

    it('charges back an approved card payment: the chargeback is readable and both notifications go out', async () => {
      const paid = await card(token, mp.createCardToken(seller), { notification_url: hook.url });
      await mp.settled();
      const disputed = await mp.chargeback(paid.body.id);
      expect(disputed.payment).to.include({ status: 'charged_back' });
      expect(disputed.chargebackDelivery?.status).to.equal(200);
      expect(disputed.delivery?.status).to.equal(200);
      const notice = hook.received.find(
        (r) => new URL(r.url, 'http://receiver').searchParams.get('type') === 'topic_chargebacks_wh',
      );
      if (!notice) throw new Error('no chargebacks notification');
      expect(new URL(notice.url, 'http://receiver').searchParams.get('data.id')).to.equal(
        disputed.chargeback.id,
      );
      expect(JSON.parse(notice.body)).to.include({ type: 'topic_chargebacks_wh' });
      expect(signatureVerifies(notice, mp.webhookSecret)).to.equal(true);

      const read = await call<MpChargeback>('GET', api(`/v1/chargebacks/${disputed.chargeback.id}`), {
        token,
      });
      expect(read.status).to.equal(200);
      expect(read.body).to.include({ id: disputed.chargeback.id, amount: 250, currency: 'BRL' });
      expect(read.body.payments).to.deep.equal([{ id: paid.body.id }]);
      expect(read.body).to.have.property('coverage_applied');
      const other = await connected();
      expect(
        (
          await call('GET', api(`/v1/chargebacks/${disputed.chargeback.id}`), {
            token: other.tokens.access_token,
          })
        ).status,
      ).to.equal(404);

      const refunded = await mp.refund(
        (await card(token, mp.createCardToken(seller), { notification_url: hook.url })).body.id,
      );
      expect(refunded.payment.status).to.equal('refunded');
      expect(refunded.refund.source.type).to.equal('collector');
    });
  });

  // Last: mocha runs a suite's own tests before its nested suites, so this one sits in a suite of its own.
  describe('request log', () => {
    it('keeps no access token, secret or card number in its request log', async () => {
      await mp.settled();
      const log = JSON.stringify(mp.requests);
      expect(log).to.not.include(mp.clientSecret);
      expect(log).to.not.match(/APP_USR-\d+-\d{6}-[0-9a-f]{32}/);
      expect(log).to.not.match(/"refresh_token":"TG-/);
      expect(log).to.not.include('4235647728025682');
      expect(log).to.not.include('5031433215406351');
      expect(mp.requests.some((r) => r.path === '/oauth/token')).to.equal(true);
    });
  });
});
