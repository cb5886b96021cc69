import { expect } from 'chai';
import { ConfigError, DEV_GATEWAY_WEBHOOK_SECRET, loadConfig } from '../../src/shared/config.js';
import { startTestApp } from '../helpers/app.js';
import { isValidGatewaySignature, signGatewayBody } from '../../src/orders/gateway-signature.js';
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

  it('accepts only sha256=<hex HMAC of the exact raw body>', () => {
    const body = Buffer.from('{"order_code":"x"}');
    const header = signGatewayBody('s3cret-s3cret-s3cret', body);
    expect(header).to.match(/^sha256=[0-9a-f]{64}$/);
    expect(isValidGatewaySignature('s3cret-s3cret-s3cret', body, header)).to.equal(true);
    expect(
      isValidGatewaySignature('s3cret-s3cret-s3cret', body, header.toUpperCase().replace('SHA256', 'sha256')),
    ).to.equal(true);
    expect(
      isValidGatewaySignature('s3cret-s3cret-s3cret', Buffer.from('{"order_code":"y"}'), header),
    ).to.equal(false);
    expect(isValidGatewaySignature('other-secret-other', body, header)).to.equal(false);
    expect(isValidGatewaySignature('s3cret-s3cret-s3cret', body, header.slice(7))).to.equal(false);
    expect(isValidGatewaySignature('s3cret-s3cret-s3cret', body, undefined)).to.equal(false);
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
