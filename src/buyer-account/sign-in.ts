/**
 * Signing a buyer in without a password: an address asks for a link; if it has live purchases, a
 * link (a random token, kept as its SHA-256 only) is mailed to it, good once within 15 minutes. The
 * answer is the same either way. Requests are limited per address (5 an hour) and per client IP
 * (30 an hour), counted in Redis by rate-limiter-flexible, known address or not. The link opens a
 * session: a random id in an HttpOnly cookie, also kept as its SHA-256 only, apart from the
 * dashboard's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { enqueueSignIn, insertSignInMessage } from '../emails/sign-in.js';
import type { AppContext } from '../shared/context.js';
import { randomBase62, sha256Hex } from '../shared/ids.js';
import type { Language } from '../ui/language.js';
import {
  findBuyerSession,
  insertBuyerSession,
  insertSignInLink,
  latestLiveOrderOf,
  redeemSignInLink,
  revokeBuyerSession,
} from './repository.js';

export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
export const BUYER_SESSION_TTL_MS = 12 * 3_600_000;
export const PER_ADDRESS_PER_HOUR = 5;
export const PER_IP_PER_HOUR = 30;

/** A sign-in link token: 43 base62 characters (about 256 bits). */
export const SIGN_IN_TOKEN = /^[0-9A-Za-z]{43}$/;
export const BUYER_SESSION_ID = /^bs_[0-9A-Za-z]{40}$/;

export interface BuyerSession {
  id: number;
  email: string;
  csrfToken: string;
}

/** The CSRF token of a session: derived from its secret id, never stored, dead with it. */
export const buyerCsrfOf = (sessionId: string): string =>
  createHmac('sha256', sessionId).update('buyer-csrf').digest('base64url');

/** Constant-time comparison of two form tokens. */
export function sameToken(expected: string, sent: unknown): boolean {
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** An e-mail address as the page compares it: trimmed, lower-cased. */
export const normalEmail = (value: string): string => value.trim().toLowerCase();

/** A plausible address (the checkout's own rule is stricter; an unknown one simply has no purchases). */
export const EMAIL_SHAPE = /^[^\s@<>()"',;:\\]{1,64}@[^\s@<>()"',;:\\]{1,255}$/;

interface Limiters {
  address: RateLimiterAbstract;
  ip: RateLimiterAbstract;
}

const limiters = new WeakMap<AppContext, Limiters>();

/** Hourly windows in Redis (every web process shares them), in-process while Redis is unreachable. */
function limitersOf(ctx: AppContext): Limiters {
  const known = limiters.get(ctx);
  if (known) return known;
  const make = (name: string, points: number): RateLimiterAbstract => {
    const keyPrefix = `${ctx.config.queuePrefix.replace(/^\{(.*)\}$/, '$1')}:rl:buyer-sign-in:${name}`;
    return new RateLimiterRedis({
      storeClient: ctx.redis,
      keyPrefix,
      points,
      duration: 3600,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: 3600 }),
    });
  };
  const made = { address: make('address', PER_ADDRESS_PER_HOUR), ip: make('ip', PER_IP_PER_HOUR) };
  limiters.set(ctx, made);
  return made;
}

/** Whether the window still allowed this request (it is counted either way). */
async function allowed(
  limiter: RateLimiterAbstract,
  key: string,
): Promise<{ ok: boolean; retryAfterS: number }> {
  try {
    await limiter.consume(key);
    return { ok: true, retryAfterS: 0 };
  } catch (refused) {
    if (refused instanceof RateLimiterRes)
      return { ok: false, retryAfterS: Math.max(1, Math.ceil(refused.msBeforeNext / 1000)) };
    throw refused;
  }
}

export type LinkRequestOutcome = { kind: 'answered' } | { kind: 'limited'; retryAfterS: number };

/**
 * Asks for a sign-in link. Limited per IP and per address (the address counted by its hash, so
 * Redis never holds it); within the limits, a link is made and mailed only when the address has
 * live purchases, and the caller answers the same way in both cases.
 */
export async function requestSignInLink(
  ctx: AppContext,
  input: { email: string; ip: string; language: Language },
): Promise<LinkRequestOutcome> {
  const email = normalEmail(input.email);
  const { address, ip } = limitersOf(ctx);
  const byIp = await allowed(ip, input.ip);
  const byAddress = await allowed(address, sha256Hex(email));
  if (!byIp.ok || !byAddress.ok)
    return { kind: 'limited', retryAfterS: Math.max(byIp.retryAfterS, byAddress.retryAfterS) };
  const latest = await latestLiveOrderOf(ctx.db, email);
  if (!latest) return { kind: 'answered' };
  const token = randomBase62(43);
  const expiresAt = new Date(Date.now() + SIGN_IN_LINK_TTL_MS);
  const message = await ctx.db.transaction(async (tx) => {
    const id = await insertSignInLink(tx, { email, tokenHash: sha256Hex(token), expiresAt });
    return insertSignInMessage(ctx, tx, {
      companyId: latest.companyId,
      email,
      language: input.language,
      link: { id, token, expiresAt },
    });
  });
  enqueueSignIn(ctx, message);
  return { kind: 'answered' };
}

/**
 * Uses a link: a new session (its id, to send as the cookie, once) for the address it was mailed
 * to, or undefined when the link is unknown, used or expired.
 */
export async function signInWithLink(
  ctx: AppContext,
  token: string,
): Promise<{ sessionId: string; expiresAt: Date } | undefined> {
  if (!SIGN_IN_TOKEN.test(token)) return undefined;
  const email = await redeemSignInLink(ctx.db, sha256Hex(token));
  if (email === undefined) return undefined;
  const sessionId = `bs_${randomBase62(40)}`;
  const expiresAt = new Date(Date.now() + BUYER_SESSION_TTL_MS);
  await insertBuyerSession(ctx.db, { sessionHash: sha256Hex(sessionId), email, expiresAt });
  return { sessionId, expiresAt };
}

export async function findSession(ctx: AppContext, sessionId: string): Promise<BuyerSession | undefined> {
  if (!BUYER_SESSION_ID.test(sessionId)) return undefined;
  const found = await findBuyerSession(ctx.db, sha256Hex(sessionId));
  return found && { ...found, csrfToken: buyerCsrfOf(sessionId) };
}

export const signOut = (ctx: AppContext, session: BuyerSession): Promise<void> =>
  revokeBuyerSession(ctx.db, session.id);
