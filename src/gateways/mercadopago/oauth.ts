/**
 * Mercado Pago's OAuth for platforms (one MP application per deployment; each company authorizes it on
 * its own MP account): the authorization address a seller opens, and the token endpoint that turns
 * the code, then each refresh token, into tokens. docs/mercadopago.md tells the round trip.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { MercadoPagoConfig } from '../../shared/config.js';
import { callJson, UpstreamUnavailableError } from '../../shared/http/json-client.js';
import type { TokenGrant } from '../accounts/repository.js';

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

/** What every token answer carries; MP's refresh example answers only these (and token_type, scope). */
export type RefreshedTokens = Pick<TokenGrant, 'accessToken' | 'refreshToken' | 'expiresInSeconds'>;

const answerOf = (body: unknown): TokenAnswer =>
  (typeof body === 'object' && body !== null ? body : {}) as TokenAnswer;

function tokensOf(answer: TokenAnswer): RefreshedTokens {
  const { access_token, refresh_token, expires_in } = answer;
  if (
    typeof access_token !== 'string' ||
    access_token === '' ||
    typeof refresh_token !== 'string' ||
    refresh_token === '' ||
    typeof expires_in !== 'number' ||
    !(expires_in > 0)
  )
    // A 200 that is not a grant says nothing about the refresh token: try again later.
    throw new UpstreamUnavailableError('POST /oauth/token: the answer carried no tokens');
  return { accessToken: access_token, refreshToken: refresh_token, expiresInSeconds: expires_in };
}

/** The first grant of a connection: the account and its public key come with it, or it is no use. */
function grantOf(body: unknown): TokenGrant {
  const answer = answerOf(body);
  const tokens = tokensOf(answer);
  const { user_id, public_key } = answer;
  if ((typeof user_id !== 'number' && typeof user_id !== 'string') || typeof public_key !== 'string')
    throw new GrantRefusedError('the token endpoint answered without the account (user_id, public_key)');
  return {
    ...tokens,
    accountId: String(user_id),
    publicKey: public_key,
    liveMode: answer.live_mode !== false,
  };
}

/** MP's reason for a refusal, for logs (never a token: the answer to a refusal carries none). */
const refusalOf = (status: number, body: unknown): string => {
  const answer = answerOf(body);
  const words = [answer.error, answer.message].filter((w): w is string => typeof w === 'string');
  return `HTTP ${status}${words.length > 0 ? `: ${words.join(' - ').slice(0, 200)}` : ''}`;
};

/**
 * Whether an answer says the code or refresh token is gone: OAuth's `invalid_grant` (RFC 6749 §5.2,
 * the error MP's "Create and refresh token" reference lists), or a 400/401 whose words say so.
 */
function grantGone(status: number, body: unknown): boolean {
  const answer = answerOf(body);
  if (answer.error === 'invalid_grant') return true;
  if (status !== 400 && status !== 401) return false;
  const words = [answer.error, answer.message].filter((w): w is string => typeof w === 'string').join(' ');
  return /invalid_grant|(invalid|expired|revoked|used)[ _-]*(refresh[ _-]?token|code|grant)|(refresh[ _-]?token|grant)[ _-]*(is )?(invalid|expired|revoked|not found)/i.test(
    words,
  );
}

/**
 * One call to `POST /oauth/token`. Only an answer saying the grant is gone is a GrantRefusedError;
 * 408, 429, 5xx, no answer, and any other refusal (this deployment's own client credentials, say)
 * are UpstreamUnavailableError: nothing is known about the grant, so it is kept and tried later.
 */
async function tokenCall(mp: MercadoPagoConfig, grant: Record<string, string>): Promise<unknown> {
  const answer = await callJson({
    method: 'POST',
    url: `${mp.apiUrl}/oauth/token`,
    json: { client_id: mp.clientId, client_secret: mp.clientSecret, ...grant },
    timeoutMs: mp.timeoutMs,
  });
  if (answer.status === 200 || answer.status === 201) return answer.body;
  if (grantGone(answer.status, answer.body))
    throw new GrantRefusedError(refusalOf(answer.status, answer.body));
  throw new UpstreamUnavailableError(`POST /oauth/token: ${refusalOf(answer.status, answer.body)}`);
}

/** The code of the authorization, exchanged server-side with the same redirect_uri and the PKCE verifier. */
export const exchangeCode = async (
  mp: MercadoPagoConfig,
  request: { code: string; redirectUri: string; codeVerifier: string },
): Promise<TokenGrant> =>
  grantOf(
    await tokenCall(mp, {
      grant_type: 'authorization_code',
      code: request.code,
      redirect_uri: request.redirectUri,
      code_verifier: request.codeVerifier,
    }),
  );

/**
 * New tokens for a refresh token; MP rotates it, so the one given stops working. The account, its
 * public key and mode are not in every answer: the stored ones stay.
 */
export const refreshTokens = async (mp: MercadoPagoConfig, refreshToken: string): Promise<RefreshedTokens> =>
  tokensOf(answerOf(await tokenCall(mp, { grant_type: 'refresh_token', refresh_token: refreshToken })));
