/**
 * Mercado Pago's OAuth for platforms (one MP application per deployment; each company authorizes it on
 * its own MP account): the authorization address a seller opens, and the token endpoint that turns
 * the code, then each refresh token, into tokens. docs/mercadopago.md tells the round trip.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { MercadoPagoConfig } from '../shared/config.js';
import { callJson, UpstreamUnavailableError } from '../shared/http/json-client.js';
import type { TokenGrant } from './gateway-accounts.js';

/** The token endpoint answered, but not with tokens: the code or refresh token is not (or no longer) good. */
export class GrantRefusedError extends Error {
  override name = 'GrantRefusedError';
}

/** A PKCE verifier: 43 characters of base64url, as RFC 7636 asks. */
export const newCodeVerifier = (): string => randomBytes(32).toString('base64url');

const challengeOf = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

/** Where the seller authorizes the application: `{MERCADOPAGO_AUTH_URL}/authorization?…`. */
export function authorizationUrl(
  mp: MercadoPagoConfig,
  request: { state: string; redirectUri: string; codeVerifier: string },
): string {
  const url = new URL(`${mp.authUrl}/authorization`);
  url.search = new URLSearchParams({
    client_id: mp.clientId,
    response_type: 'code',
    platform_id: 'mp',
    state: request.state,
    redirect_uri: request.redirectUri,
    code_challenge: challengeOf(request.codeVerifier),
    code_challenge_method: 'S256',
  }).toString();
  return url.href;
}

interface TokenAnswer {
  access_token?: unknown;
  refresh_token?: unknown;
  expires_in?: unknown;
  user_id?: unknown;
  public_key?: unknown;
  live_mode?: unknown;
  message?: unknown;
  error?: unknown;
}

function grantOf(body: unknown): TokenGrant {
  const answer = (typeof body === 'object' && body !== null ? body : {}) as TokenAnswer;
  const { access_token, refresh_token, expires_in, user_id, public_key } = answer;
  if (
    typeof access_token !== 'string' ||
    typeof refresh_token !== 'string' ||
    typeof expires_in !== 'number' ||
    (typeof user_id !== 'number' && typeof user_id !== 'string') ||
    typeof public_key !== 'string'
  ) {
    throw new GrantRefusedError('the token endpoint answered without the tokens it should give');
  }
  return {
    accessToken: access_token,
    refreshToken: refresh_token,
    expiresInSeconds: expires_in,
    accountId: String(user_id),
    publicKey: public_key,
    liveMode: answer.live_mode !== false,
  };
}

/** MP's reason for a refusal, for logs (never a token: the answer to a refusal carries none). */
const refusalOf = (status: number, body: unknown): string => {
  const answer = (typeof body === 'object' && body !== null ? body : {}) as TokenAnswer;
  const words = [answer.error, answer.message].filter((w): w is string => typeof w === 'string');
  return `HTTP ${status}${words.length > 0 ? `: ${words.join(' - ').slice(0, 200)}` : ''}`;
};

async function tokenCall(mp: MercadoPagoConfig, grant: Record<string, string>): Promise<TokenGrant> {
  const answer = await callJson({
    method: 'POST',
    url: `${mp.apiUrl}/oauth/token`,
    json: { client_id: mp.clientId, client_secret: mp.clientSecret, ...grant },
    timeoutMs: mp.timeoutMs,
  });
  // A server error says nothing about the grant: the caller may try again (UpstreamUnavailable).
  if (answer.status >= 500) throw new UpstreamUnavailableError(`POST /oauth/token: HTTP ${answer.status}`);
  if (answer.status !== 200 && answer.status !== 201) {
    throw new GrantRefusedError(refusalOf(answer.status, answer.body));
  }
  return grantOf(answer.body);
}

/** The code of the authorization, exchanged server-side with the same redirect_uri and the PKCE verifier. */
export const exchangeCode = (
  mp: MercadoPagoConfig,
  request: { code: string; redirectUri: string; codeVerifier: string },
): Promise<TokenGrant> =>
  tokenCall(mp, {
    grant_type: 'authorization_code',
    code: request.code,
    redirect_uri: request.redirectUri,
    code_verifier: request.codeVerifier,
  });

/** New tokens for a refresh token; MP rotates it, so the one given stops working. */
export const refreshTokens = (mp: MercadoPagoConfig, refreshToken: string): Promise<TokenGrant> =>
  tokenCall(mp, { grant_type: 'refresh_token', refresh_token: refreshToken });
