/**
 * Start-up of the gateways room: the `gateway` integration type's kind, with its connection (the
 * OAuth authorization and the account), provided to the integration core's port
 * (src/integrations/kinds/connection.ts). Every process that serves or works calls it before it
 * starts (the apps, the workers, the CLI); the core refuses to start without it.
 */
import type { AccountConnection } from '../integrations/kinds/connection.js';
import { provideKind, requireProvidedKinds } from '../integrations/kinds/registry.js';
import {
  completeConnection,
  pendingAlert,
  releaseConnection,
  requireReconnection,
} from './accounts/connection.js';
import { gatewayKind, reconnectNeeded } from './accounts/kind.js';

const connection: AccountConnection = {
  reconnectNeeded,
  requireAuthorization: requireReconnection,
  release: releaseConnection,
  alert: pendingAlert,
  complete: completeConnection,
};

const gatewayConnectionKind = { ...gatewayKind, connection };

/** Provides the gateway kind (again: a no-op), then checks that no provided kind is missing. */
export function installGateways(): void {
  provideKind(gatewayConnectionKind);
  requireProvidedKinds();
}
