/**
 * Which gateway takes the payments. The one place an adapter for a real PSP is chosen (docs/architecture.md,
 * "Writing a gateway adapter").
 */
import type { PaymentGateway } from '../orders/gateway.js';
import type { Config } from '../shared/config.js';
import { devGateway } from './dev.js';
import { readSignedCallback } from './signed-callback.js';

/**
 * Without the dev gateway, payments are made elsewhere and reported through the signed callback: the
 * checkout gives no instructions, and every order waits for its callback.
 */
function callbackOnlyGateway(callbackSecret: string | undefined): PaymentGateway {
  return {
    name: 'callback-only',
    createCharge: () => Promise.resolve({ status: 'pending', pix: null, boleto: null }),
    ...(callbackSecret === undefined
      ? {}
      : { readCallback: (callback) => readSignedCallback(callbackSecret, callback) }),
  };
}

const chosen = new WeakMap<Config, PaymentGateway>();

/** The gateway of this configuration (one per process). */
export function gatewayFor(config: Config): PaymentGateway {
  let gateway = chosen.get(config);
  if (!gateway) {
    gateway = config.devGateway
      ? devGateway(config.gatewayWebhookSecret)
      : callbackOnlyGateway(config.gatewayWebhookSecret);
    chosen.set(config, gateway);
  }
  return gateway;
}
