/**
 * The connection port: the `gateway` type is not an event destination but a company's connection to
 * its account at a PSP, and that connection (its OAuth authorization, its sealed tokens, the provider
 * it names) belongs to the gateways room (`src/gateways/accounts/`), which sits above this one. So the
 * integration core knows the type only through this port: the gateways room provides its kind at
 * start-up (`provideKind` in `registry.ts`), and the core calls it in the transaction of each change
 * of such an integration, and for the alert and the OAuth redirect of the `integrations` resource.
 * A process that never provided it refuses to start (`requireProvidedKinds`).
 */
import type { AppContext } from '../../shared/context.js';
import type { Executor } from '../../shared/db/index.js';
import type { IntegrationKind, StoredConfig } from './kind.js';

type Deps = Pick<AppContext, 'db' | 'config'>;

/** The panel's alert: whether the company's gateway waits for its authorization (and where to give it). */
export type Alert = { pending: false } | { pending: true; type: 'gateway'; oauth_url?: string };

/** An integration of a connecting kind, as the core hands it over. */
export interface ConnectingIntegration {
  id: number;
  companyId: number;
}

export interface AccountConnection {
  /** Whether a config change means the company must authorize again (another provider). */
  reconnectNeeded(before: StoredConfig, after: StoredConfig | undefined): boolean;
  /**
   * In the transaction that created the integration, moved it to this kind, or changed its provider:
   * it waits for an authorization (a new single-use state), and an account it used is let go.
   */
  requireAuthorization(deps: Deps, tx: Executor, integration: ConnectingIntegration): Promise<void>;
  /** In the transaction that moved it to another kind: its account let go, nothing left pending. */
  release(tx: Executor, integrationId: number): Promise<void>;
  /** The company's alert; the authorization address only `withOauthUrl` (never to a read-only key). */
  alert(deps: Deps, companyId: number, options: { withOauthUrl: boolean }): Promise<Alert>;
  /**
   * The OAuth redirect: the single-use `state` names the integration; the code is exchanged and the
   * account stored. Throws the error family's 400 (unknown state, refused code) or 502.
   */
  complete(deps: Deps, state: string, code: string): Promise<{ integrationId: number; companyId: number }>;
}

/** A kind another room provides at start-up, with its connection. */
export interface ConnectionKind extends IntegrationKind {
  readonly connection: AccountConnection;
}
