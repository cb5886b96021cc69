import { expect } from 'chai';
import { ConfigError, loadConfig, mountPath } from '../../src/shared/config.js';

describe('configuration', () => {
  it('fails fast naming the variable that is wrong', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).to.throw(ConfigError, /PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).to.throw(ConfigError, /DATABASE_URL/);
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: '0' })).to.throw(ConfigError, /RATE_LIMIT_PER_MINUTE/);
  });

  it('refuses METRICS_PORT without METRICS_TOKEN (the worker would serve no metrics)', () => {
    expect(() => loadConfig({ METRICS_PORT: '9464' })).to.throw(
      ConfigError,
      /METRICS_TOKEN: is required when METRICS_PORT is set/,
    );
    const config = loadConfig({ METRICS_PORT: '9464', METRICS_TOKEN: 'a-metrics-token-0123' });
    expect(config.metrics).to.deep.equal({ token: 'a-metrics-token-0123', port: 9464 });
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'loud' })).to.throw(
      ConfigError,
      /PORT[\s\S]*LOG_LEVEL|LOG_LEVEL[\s\S]*PORT/,
    );
  });

  it('derives the three public addresses from PUBLIC_BASE_URL by default', () => {
    const config = loadConfig({ PUBLIC_BASE_URL: 'https://pay.example.com/' });
    expect(config.urls).to.deep.equal({
      payments: 'https://pay.example.com',
      panel: 'https://pay.example.com/panel/v1',
      checkout: 'https://pay.example.com/pay',
    });
  });

  it('lets each surface have its own public URL', () => {
    const config = loadConfig({
      PANEL_API_URL: 'https://panel.example.com/v1',
      CHECKOUT_URL: 'https://checkout.example.com',
    });
    expect(mountPath(config.urls.panel)).to.equal('/v1');
    expect(mountPath(config.urls.checkout)).to.equal('/');
  });

  it('leaves DATABASE_URL and REDIS_URL unset when absent, meaning embedded defaults', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).to.equal(undefined);
    expect(config.redisUrl).to.equal(undefined);
  });

  it('allows private webhook targets outside production only', () => {
    expect(loadConfig({}).webhooks.allowPrivateTargets).to.equal(true);
    expect(loadConfig({ NODE_ENV: 'production' }).webhooks.allowPrivateTargets).to.equal(false);
    expect(
      loadConfig({ NODE_ENV: 'production', ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' }).webhooks
        .allowPrivateTargets,
    ).to.equal(true);
  });

  it('reads RENEWAL_RETRY_SCHEDULE as seconds between a failed renewal and its retries, refusing nonsense by name', () => {
    expect(loadConfig({}).renewalRetryScheduleSeconds).to.deep.equal([86_400, 259_200, 432_000]);
    expect(loadConfig({ RENEWAL_RETRY_SCHEDULE: '1,2' }).renewalRetryScheduleSeconds).to.deep.equal([1, 2]);
    for (const bad of ['1,,2', '1.5', '-1', '0,60', 'daily', '1,2,3,4,5,6,7,8,9,10,11', '31708801']) {
      expect(() => loadConfig({ RENEWAL_RETRY_SCHEDULE: bad }), bad).to.throw(
        ConfigError,
        /RENEWAL_RETRY_SCHEDULE: /,
      );
    }
  });
});
