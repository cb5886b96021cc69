/**
 * A `gateway` integration is the company's connection to its PSP account (docs/mercadopago.md). This
 * module holds what is particular to it: the OAuth state (single-use, expiring, with a PKCE verifier,
 * in gateway_authorizations), the authorization address the alert shows, and the completion of the
 * round trip (the code exchanged server-side, the tokens stored sealed in gateway_accounts). The
 * integration core reaches it through its connection port (src/integrations/kinds/connection.ts).
 */
import type { Alert, ConnectingIntegration } from '../../integrations/kinds/connection.js';
import * as integrations from '../../integrations/repository.js';
import type { IntegrationRow } from '../../integrations/repository.js';
import type { AppContext } from '../../shared/context.js';
import { credentialSealer } from '../../shared/credentials.js';
import type { Db, Executor } from '../../shared/db/index.js';
import { BadGatewayError, ValidationError } from '../../shared/errors.js';
import { UpstreamUnavailableError } from '../../shared/http/json-client.js';
import { randomBase62 } from '../../shared/ids.js';
import { authorizationUrl, exchangeCode, GrantRefusedError, newCodeVerifier } from '../mercadopago/oauth.js';
import * as authorizations from './authorizations.js';
import type { AuthorizationRow, NewState } from './authorizations.js';
import { providerOf } from './kind.js';
import { connectAccount, detachAccounts } from './repository.js';

type Deps = Pick<AppContext, 'db' | 'config'>;

/** How long an authorization address works; the alert hands out a fresh one before it ends. */
export const OAUTH_STATE_TTL_MS = 60 * 60 * 1000;
const OAUTH_STATE_RENEW_BEFORE_MS = 10 * 60 * 1000;

const stateVerifierPurpose = (state: string): string => `oauth_state:${state}:code_verifier`;

/** A pending state's sealed verifier under the ring's newest key; undefined when it already is. */
export function resealStateVerifier(deps: Deps, state: string, sealed: string): string | undefined {
  const sealer = credentialSealer(deps.config.credentialsKey);
  if (sealer.isCurrent(sealed)) return undefined;
  return sealer.seal(sealer.open(sealed, stateVerifierPurpose(state)), stateVerifierPurpose(state));
}

/** A fresh single-use state, its expiry and its sealed PKCE verifier: the columns that start an authorization. */
export function newOauthState(deps: Deps, now = new Date()): NewState {
  const state = randomBase62(32);
  return {
    state,
    stateExpiresAt: new Date(now.getTime() + OAUTH_STATE_TTL_MS),
    codeVerifier: credentialSealer(deps.config.credentialsKey).seal(
      newCodeVerifier(),
      stateVerifierPurpose(state),
    ),
  };
}

/** Where the provider's consent page sends the browser back: the panel's OAuth callback, absolute. */
export const oauthRedirectUri = (deps: Deps): string =>
  `${deps.config.urls.panel}/integrations/oauth/callback`;

/** The dev gateway's stand-in consent page, which redirects straight back with a code. */
const devAuthorizeUrl = (deps: Deps, state: string): string =>
  `${deps.config.urls.panel}/integrations/oauth/authorize?state=${encodeURIComponent(state)}`;

/**
 * The authorization address of a pending gateway, for the alert: its state renewed first when it is
 * missing or about to expire (so an address shown always works for a while), under the row's lock.
 */
export async function authorizationAddress(
  deps: Deps,
  integration: Pick<IntegrationRow, 'id' | 'config'>,
  pending: AuthorizationRow,
  now = new Date(),
): Promise<string> {
  let row = pending;
  const fresh = (r: AuthorizationRow): boolean =>
    r.state !== null &&
    r.stateExpiresAt !== null &&
    r.stateExpiresAt.getTime() - now.getTime() > OAUTH_STATE_RENEW_BEFORE_MS;
  if (!fresh(row)) {
    row = await deps.db.transaction(async (tx) => {
      const locked = await authorizations.lockAuthorization(tx, integration.id);
      if (!locked || fresh(locked)) return locked ?? pending;
      return (await authorizations.setState(tx, integration.id, newOauthState(deps, now))) ?? locked;
    });
  }
  const state = row.state ?? '';
  const mp = deps.config.mercadoPago;
  if (providerOf(integration.config) !== 'mercadopago' || !mp) return devAuthorizeUrl(deps, state);
  const codeVerifier = credentialSealer(deps.config.credentialsKey).open(
    row.codeVerifier ?? '',
    stateVerifierPurpose(state),
  );
  return authorizationUrl(mp, { state, redirectUri: oauthRedirectUri(deps), codeVerifier });
}

/** The company's active gateway and its pending authorization (undefined: none, or connected). */
export async function activeGateway(
  db: Executor,
  companyId: number,
): Promise<{ integration: IntegrationRow; pending: AuthorizationRow | undefined } | undefined> {
  const integration = await integrations.findActiveGateway(db, companyId);
  if (!integration) return undefined;
  return { integration, pending: await authorizations.findAuthorization(db, integration.id) };
}

/** The panel's alert: whether the company's active gateway waits for its authorization. */
export async function pendingAlert(
  deps: Deps,
  companyId: number,
  options: { withOauthUrl: boolean },
): Promise<Alert> {
  const gateway = await activeGateway(deps.db, companyId);
  if (!gateway?.pending) return { pending: false };
  if (!options.withOauthUrl) return { pending: true, type: 'gateway' };
  const oauthUrl = await authorizationAddress(deps, gateway.integration, gateway.pending);
  return { pending: true, type: 'gateway', oauth_url: oauthUrl };
}

const unknownState = (): ValidationError =>
  ValidationError.field('state', 'unknown, already used or expired OAuth state');

/**
 * The OAuth redirect: the single-use `state` names the integration (the request carries no panel
 * token). The state is used up first, in its own transaction, so two arrivals of one redirect cannot
 * both exchange; then the code is exchanged with the provider outside any lock, and the tokens are
 * stored sealed as the integration's account. A refused or failed exchange leaves the gateway
 * pending (its alert hands out a new address).
 */
export async function completeConnection(
  deps: Deps,
  state: string,
  code: string,
  now = new Date(),
): Promise<{ integrationId: number; companyId: number }> {
  const claimed = await deps.db.transaction(async (tx) => {
    const pending = await authorizations.lockByState(tx, state);
    if (!pending || code.length === 0) throw unknownState();
    if (pending.stateExpiresAt !== null && pending.stateExpiresAt.getTime() <= now.getTime())
      throw unknownState();
    const integration = await integrations.findIntegrationById(tx, pending.integrationId);
    if (!integration) throw unknownState();
    await authorizations.setState(tx, pending.integrationId, { state: null, codeVerifier: null });
    return { pending, integration };
  });
  const { integration } = claimed;
  const mp = deps.config.mercadoPago;
  if (providerOf(integration.config) !== 'mercadopago' || !mp) {
    await connectDev(deps.db, integration, now);
    return { integrationId: integration.id, companyId: integration.companyId };
  }
  const codeVerifier = credentialSealer(deps.config.credentialsKey).open(
    claimed.pending.codeVerifier ?? '',
    stateVerifierPurpose(state),
  );
  const grant = await exchangeCode(mp, { code, redirectUri: oauthRedirectUri(deps), codeVerifier }).catch(
    (err: unknown) => {
      if (err instanceof GrantRefusedError)
        throw ValidationError.field('code', `Mercado Pago refused the authorization code (${err.message})`);
      if (err instanceof UpstreamUnavailableError)
        throw new BadGatewayError(
          'Mercado Pago could not be reached to complete the authorization; try again',
        );
      throw err;
    },
  );
  await integrations.withCompanyIntegrationsLock(deps.db, integration.companyId, async (tx) => {
    const current = await integrations.findIntegration(tx, integration.companyId, integration.id);
    // Deleted, or moved to another provider while the seller was on MP's page: nothing to connect.
    if (!current || current.type !== 'gateway' || providerOf(current.config) !== 'mercadopago')
      throw unknownState();
    const account = await connectAccount(
      tx,
      deps.config.credentialsKey,
      { companyId: current.companyId, provider: 'mercadopago', integrationId: current.id, grant },
      now,
    );
    await authorizations.endAuthorization(tx, current.id);
    await integrations.updateIntegration(tx, current.companyId, current.id, {
      config: {
        ...current.config,
        provider: 'mercadopago',
        account_id: account.accountId,
        public_key: account.publicKey,
        connected_at: now.toISOString(),
      },
    });
  });
  return { integrationId: integration.id, companyId: integration.companyId };
}

/** The dev gateway connects nothing: the round trip records its time and clears the alert. */
async function connectDev(db: Db, row: IntegrationRow, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await authorizations.endAuthorization(tx, row.id);
    await integrations.updateIntegration(tx, row.companyId, row.id, {
      config: { ...row.config, provider: 'dev', oauth_connected_at: now.toISOString() },
    });
  });
}

/**
 * Puts a gateway back to waiting for an authorization (created, moved to another provider, or its
 * PSP refused to refresh its tokens): a new state, and the account let go for new charges.
 */
export async function requireReconnection(
  deps: Deps,
  tx: Executor,
  integration: ConnectingIntegration,
): Promise<void> {
  await detachAccounts(tx, integration.id);
  await authorizations.awaitAuthorization(tx, integration.id, newOauthState(deps));
}

/** No longer a gateway: the account let go, nothing left pending. */
export async function releaseConnection(tx: Executor, integrationId: number): Promise<void> {
  await detachAccounts(tx, integrationId);
  await authorizations.endAuthorization(tx, integrationId);
}
