/**
 * A company's MP access token, fresh: refreshed before use when it expires within a tenth of its
 * lifetime (at most 24 h before), and once when MP answers 401. One refresh at a time per account
 * (under its row lock; MP rotates the refresh token, so two concurrent refreshes would make the
 * second fail). A refresh MP refuses puts the gateway back to pending: its alert asks for a new
 * authorization, and nothing more is charged through the account until then.
 */
import type { AppContext } from '../../shared/context.js';
import {
  findAccount,
  lockAccount,
  markAccountRevoked,
  storeRefreshedTokens,
  type GatewayAccount,
} from '../accounts/repository.js';
import { requireReconnection } from '../accounts/connection.js';
import { findIntegrationById } from '../../integrations/repository.js';
import { UpstreamUnavailableError } from '../../shared/http/json-client.js';
import { AccountDisconnectedError, GatewayUnavailableError } from '../port.js';
import { MpUnauthorizedError, type MpCall } from './api.js';
import { GrantRefusedError, refreshTokens } from './oauth.js';

type Deps = Pick<AppContext, 'db' | 'config' | 'logger'>;

const DAY_MS = 86_400_000;

/** Whether the token should be refreshed before it is used. */
export function expiresSoon(
  account: Pick<GatewayAccount, 'tokenExpiresAt' | 'tokenLifetimeSeconds'>,
  now: Date,
): boolean {
  const margin = Math.min((account.tokenLifetimeSeconds * 1000) / 10, DAY_MS);
  return account.tokenExpiresAt.getTime() - now.getTime() <= margin;
}

function mpConfig(deps: Deps) {
  const mp = deps.config.mercadoPago;
  if (!mp) throw new GatewayUnavailableError('Mercado Pago is not configured in this deployment');
  return mp;
}

/**
 * Refreshes the account's tokens unless another process already did (its token is no longer
 * `stale`, and not about to expire): the one refresh under the row lock. A refusal is recorded in
 * the same transaction, which then commits, and reported afterwards.
 */
async function refresh(deps: Deps, accountId: number, stale: string): Promise<string> {
  const mp = mpConfig(deps);
  const key = deps.config.credentialsKey;
  const outcome = await deps.db.transaction(async (tx) => {
    const account = await lockAccount(tx, key, accountId);
    if (!account || account.revokedAt) return { revoked: true as const };
    if (account.accessToken !== stale && !expiresSoon(account, new Date()))
      return { token: account.accessToken };
    try {
      const grant = await refreshTokens(mp, account.refreshToken);
      await storeRefreshedTokens(tx, key, accountId, grant);
      return { token: grant.accessToken };
    } catch (err) {
      if (!(err instanceof GrantRefusedError)) throw err;
      await markAccountRevoked(tx, accountId);
      const integration =
        account.integrationId === null ? undefined : await findIntegrationById(tx, account.integrationId);
      if (integration) await requireReconnection(deps, tx, integration);
      deps.logger.warn(
        { accountRowId: accountId, companyId: account.companyId, reason: err.message },
        'Mercado Pago refused to refresh an account: the company must connect it again',
      );
      return { revoked: true as const };
    }
  });
  if ('revoked' in outcome)
    throw new AccountDisconnectedError('the Mercado Pago account must be connected again');
  return outcome.token;
}

async function freshToken(deps: Deps, accountId: number): Promise<string> {
  const account = await findAccount(deps.db, deps.config.credentialsKey, accountId);
  if (!account || account.revokedAt)
    throw new AccountDisconnectedError('the Mercado Pago account must be connected again');
  if (expiresSoon(account, new Date())) return refresh(deps, accountId, account.accessToken);
  return account.accessToken;
}

/**
 * Runs an MP call with the account's token, refreshing it once if MP answers 401. Whatever leaves
 * without an answer (unreachable, timed out, 5xx) is a GatewayUnavailableError.
 */
export async function withAccount<T>(
  deps: Deps,
  accountId: number,
  call: (mp: MpCall) => Promise<T>,
): Promise<T> {
  const mp = mpConfig(deps);
  const run = async (accessToken: string): Promise<T> => {
    try {
      return await call({ mp, accessToken });
    } catch (err) {
      if (err instanceof UpstreamUnavailableError) throw new GatewayUnavailableError(err.message);
      throw err;
    }
  };
  try {
    const token = await freshToken(deps, accountId);
    try {
      return await run(token);
    } catch (err) {
      if (!(err instanceof MpUnauthorizedError)) throw err;
      const renewed = await refresh(deps, accountId, token);
      return await run(renewed);
    }
  } catch (err) {
    if (err instanceof UpstreamUnavailableError) throw new GatewayUnavailableError(err.message);
    if (err instanceof MpUnauthorizedError) throw new AccountDisconnectedError(err.message);
    throw err;
  }
}
