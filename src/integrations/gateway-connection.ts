/**
 * A `gateway` integration is the company's connection to its PSP account (docs/mercadopago.md). This
 * module holds what is particular to it: the provider in its config, the OAuth state (single-use,
 * expiring, with a PKCE verifier), the authorization address the alert shows, and the completion of
 * the round trip (the code exchanged server-side, the tokens stored sealed).
 */
import type { AppContext } from '../shared/context.js';
import { credentialSealer } from '../shared/credentials.js';
import type { Db } from '../shared/db/index.js';
import { ValidationError } from '../shared/errors.js';
import { UpstreamUnavailableError } from '../shared/http/json-client.js';
import { randomBase62 } from '../shared/ids.js';
import { BadGatewayError } from '../shared/errors.js';
import { connectAccount, detachAccounts } from './gateway-accounts.js';
import { authorizationUrl, exchangeCode, GrantRefusedError, newCodeVerifier } from './mercadopago-oauth.js';
import { providerOf } from './kinds/gateway.js';
import * as repo from './repository.js';
import { withCompanyIntegrationsLock } from './repository.js';

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
export function newOauthState(
  deps: Deps,
  now = new Date(),
): Pick<repo.IntegrationRow, 'oauthState' | 'oauthStateExpiresAt' | 'oauthCodeVerifier'> {
  const state = randomBase62(32);
  return {
    oauthState: state,
    oauthStateExpiresAt: new Date(now.getTime() + OAUTH_STATE_TTL_MS),
    oauthCodeVerifier: credentialSealer(deps.config.credentialsKey).seal(
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
  pending: repo.IntegrationRow,
  now = new Date(),
): Promise<string> {
  let row = pending;
  const fresh = (r: repo.IntegrationRow): boolean =>
    r.oauthState !== null &&
    r.oauthStateExpiresAt !== null &&
    r.oauthStateExpiresAt.getTime() - now.getTime() > OAUTH_STATE_RENEW_BEFORE_MS;
  if (!fresh(row)) {
    row = await deps.db.transaction(async (tx) => {
      const locked = await repo.lockIntegration(tx, pending.id);
      if (!locked || fresh(locked)) return locked ?? pending;
      return (
        (await repo.updateIntegration(tx, locked.companyId, locked.id, newOauthState(deps, now))) ?? locked
      );
    });
  }
  const state = row.oauthState ?? '';
  const mp = deps.config.mercadoPago;
  if (providerOf(row.config) !== 'mercadopago' || !mp) return devAuthorizeUrl(deps, state);
  const codeVerifier = credentialSealer(deps.config.credentialsKey).open(
    row.oauthCodeVerifier ?? '',
    stateVerifierPurpose(state),
  );
  return authorizationUrl(mp, { state, redirectUri: oauthRedirectUri(deps), codeVerifier });
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
    const row = await repo.findByOauthStateForUpdate(tx, state);
    if (!row || code.length === 0) throw unknownState();
    if (row.oauthStateExpiresAt !== null && row.oauthStateExpiresAt.getTime() <= now.getTime())
      throw unknownState();
    await repo.updateIntegration(tx, row.companyId, row.id, { oauthState: null, oauthCodeVerifier: null });
    return row;
  });
  const mp = deps.config.mercadoPago;
  if (providerOf(claimed.config) !== 'mercadopago' || !mp) {
    await connectDev(deps.db, claimed, now);
    return { integrationId: claimed.id, companyId: claimed.companyId };
  }
  const codeVerifier = credentialSealer(deps.config.credentialsKey).open(
    claimed.oauthCodeVerifier ?? '',
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
  await withCompanyIntegrationsLock(deps.db, claimed.companyId, async (tx) => {
    const current = await repo.findIntegration(tx, claimed.companyId, claimed.id);
    // Deleted, or moved to another provider while the seller was on MP's page: nothing to connect.
    if (!current || current.type !== 'gateway' || providerOf(current.config) !== 'mercadopago')
      throw unknownState();
    const account = await connectAccount(
      tx,
      deps.config.credentialsKey,
      { companyId: current.companyId, provider: 'mercadopago', integrationId: current.id, grant },
      now,
    );
    await repo.updateIntegration(tx, current.companyId, current.id, {
      oauthPending: false,
      oauthState: null,
      oauthStateExpiresAt: null,
      oauthCodeVerifier: null,
      config: {
        ...current.config,
        provider: 'mercadopago',
        account_id: account.accountId,
        public_key: account.publicKey,
        connected_at: now.toISOString(),
      },
    });
  });
  return { integrationId: claimed.id, companyId: claimed.companyId };
}

/** The dev gateway connects nothing: the round trip records its time and clears the alert. */
async function connectDev(db: Db, row: repo.IntegrationRow, now: Date): Promise<void> {
  await repo.updateIntegration(db, row.companyId, row.id, {
    oauthPending: false,
    oauthState: null,
    oauthStateExpiresAt: null,
    config: { ...row.config, provider: 'dev', oauth_connected_at: now.toISOString() },
  });
}

/**
 * Puts a gateway back to waiting for an authorization (the provider changed, or refused to refresh
 * its tokens): a new state, and the account let go for new charges.
 */
export async function requireReconnection(
  deps: Deps,
  tx: Parameters<typeof detachAccounts>[0],
  row: Pick<repo.IntegrationRow, 'id' | 'companyId'>,
): Promise<void> {
  await detachAccounts(tx, row.id);
  await repo.updateIntegration(tx, row.companyId, row.id, { oauthPending: true, ...newOauthState(deps) });
}
