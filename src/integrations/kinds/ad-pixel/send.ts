/**
 * One conversion sent: a JSON POST to the platform (an address of the deployment's settings, not a
 * company's, so no webhook URL guard), answered within the webhook timeout; 2xx is success, anything
 * else a failed attempt the engine retries and counts for the breaker, like a webhook's.
 */
import { request } from 'undici';
import type { Config } from '../../../shared/config.js';
import { stripNul } from '../../../shared/http/request-guards.js';
import { parseRetryAfter } from '../../../shared/http/retry-after.js';
import type { AttemptResult } from '../kind.js';
import type { ConversionRequest } from './port.js';

const HEADERS = { 'content-type': 'application/json', 'user-agent': 'payment-links-conversions/1.0' };

export async function sendConversion(config: Config, conversion: ConversionRequest): Promise<AttemptResult> {
  const requestedAt = new Date();
  const started = performance.now();
  const done = (
    partial: Pick<AttemptResult, 'statusCode' | 'ok' | 'error' | 'responseBody' | 'retryAfterSeconds'>,
  ): AttemptResult => ({
    requestedAt,
    durationMs: Math.round(performance.now() - started),
    requestHeaders: HEADERS,
    requestBody: JSON.stringify(conversion.logged),
    ...partial,
  });
  try {
    const res = await request(conversion.url, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify(conversion.body),
      signal: AbortSignal.timeout(config.webhooks.timeoutMs),
    });
    const text = stripNul((await res.body.text()).slice(0, config.webhooks.responseBodyMaxBytes));
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    const retryAfter = res.headers['retry-after'];
    return done({
      statusCode: res.statusCode,
      ok,
      error: ok ? null : `HTTP ${res.statusCode}`,
      responseBody: text,
      retryAfterSeconds: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // An undici error may quote the address, which carries GA4's secret: never kept.
    return done({
      statusCode: null,
      ok: false,
      error: stripNul(message.replace(/api_secret=[^&\s]*/g, 'api_secret=••••')).slice(0, 500),
      responseBody: null,
      retryAfterSeconds: null,
    });
  }
}
