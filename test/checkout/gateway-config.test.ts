import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { ConfigError, DEV_GATEWAY_WEBHOOK_SECRET, loadConfig } from '../../src/shared/config.js';
import { startTestApp } from '../helpers/app.js';
import { checkGatewaySignature, signGatewayBody } from '../../src/gateways/gateway-signature.js';
import { payPath, signedCallback } from './helpers.js';

describe('Gateway callback configuration and signature', () => {
  it('defaults GATEWAY_WEBHOOK_SECRET to the documented dev value outside production only', () => {
    expect(loadConfig({}).gatewayWebhookSecret).to.equal(DEV_GATEWAY_WEBHOOK_SECRET);
    expect(loadConfig({ NODE_ENV: 'production' }).gatewayWebhookSecret).to.equal(undefined);
    expect(
      loadConfig({ NODE_ENV: 'production', GATEWAY_WEBHOOK_SECRET: 'a-long-production-secret' })
        .gatewayWebhookSecret,
    ).to.equal('a-long-production-secret');
    expect(() => loadConfig({ GATEWAY_WEBHOOK_SECRET: 'short' })).to.throw(
      ConfigError,
      /GATEWAY_WEBHOOK_SECRET/,
    );
  });

  it('accepts only t=<unix seconds>,v1=<hex HMAC of "<t>.<raw body>"> within 300 s of now', () => {
    const secret = 's3cret-s3cret-s3cret';
    const body = Buffer.from('{"order_code":"x"}');
    const now = new Date('2026-03-01T12:00:00Z');
    const t = now.getTime() / 1000;
    const header = signGatewayBody(secret, body, t);
    const hex = createHmac('sha256', secret).update(`${t}.{"order_code":"x"}`).digest('hex');
    expect(header).to.equal(`t=${t},v1=${hex}`);
    const check = (h: string | undefined, at = now, b = body, s = secret) =>
      checkGatewaySignature(s, b, h, at);

    expect(check(header)).to.equal('valid');
    expect(check(` t=${t} , v1=${hex.toUpperCase()} `)).to.equal('valid');
    // A gateway rotating its secret may send one v1 per secret; any one matching is enough.
    expect(check(`t=${t},v1=${'0'.repeat(64)},v1=${hex}`)).to.equal('valid');
    expect(check(`v1=${hex},t=${t},v0=anything`)).to.equal('valid');
    // 300 s either way is the tolerance; one more second is stale.
    expect(check(header, new Date(now.getTime() + 300_000))).to.equal('valid');
    expect(check(header, new Date(now.getTime() - 300_000))).to.equal('valid');
    expect(check(header, new Date(now.getTime() + 301_000))).to.equal('stale');
    expect(check(header, new Date(now.getTime() - 301_000))).to.equal('stale');

    expect(check(header, now, Buffer.from('{"order_code":"y"}'))).to.equal('invalid');
    expect(check(header, now, body, 'other-secret-other')).to.equal('invalid');
    // The timestamp is signed: changing it breaks the signature.
    expect(check(`t=${t + 1},v1=${hex}`, new Date((t + 1) * 1000))).to.equal('invalid');
    expect(check(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`)).to.equal('invalid');
    expect(check(`v1=${hex}`)).to.equal('invalid');
    expect(check(`t=${t}`)).to.equal('invalid');
    expect(check(`t=${t},t=${t},v1=${hex}`)).to.equal('invalid');
    expect(check(`t=abc,v1=${hex}`)).to.equal('invalid');
    expect(check('')).to.equal('invalid');
    expect(check(undefined)).to.equal('invalid');
  });

  it('turns the callback off in production when no secret is configured', async () => {
    const app = await startTestApp({ NODE_ENV: 'production' });
    try {
      const res = await signedCallback(
        app,
        { order_code: '00000000-0000-4000-8000-000000000000', status: 'paid', payment_method: 'pix' },
        DEV_GATEWAY_WEBHOOK_SECRET,
      );
      expect(res.status).to.equal(404);
      expect(payPath(app, '/gateway/callback')).to.equal('/pay/gateway/callback');
    } finally {
      await app.close();
    }
  });
});
