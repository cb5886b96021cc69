import { Agent, request } from 'undici';
import type { Config } from '../../../shared/config.js';
import { stripNul } from '../../../shared/http/request-guards.js';
import { parseRetryAfter } from '../../../shared/http/retry-after.js';
import { withStoredTrace, type TraceCarrier } from '../../../shared/tracing.js';
import type { AttemptResult } from '../kind.js';
import { maskedValues } from '../sealed.js';
import { signedHeaders } from './signing.js';
import { checkUrlShape, guardedLookup, UnsafeTargetError } from './url-guard.js';

const agents = new Map<string, Agent>();

/** One shared Agent per process and policy: pooled keep-alive connections, guarded DNS. */
function agentFor(config: Config): Agent {
  const key = `${config.webhooks.allowPrivateTargets}:${config.webhooks.timeoutMs}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({
      connect: {
        timeout: config.webhooks.timeoutMs,
        lookup: guardedLookup(config.webhooks.allowPrivateTargets),
      },
      headersTimeout: config.webhooks.timeoutMs,
      bodyTimeout: config.webhooks.timeoutMs,
      keepAliveTimeout: 10_000,
      connections: 64,
    });
    agents.set(key, agent);
  }
  return agent;
}

export async function closeHttpAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close()));
}

/** Stops storing after `max` bytes but reads to the end (bounded), so the connection can be reused. */
async function readCapped(body: AsyncIterable<Buffer>, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.length;
    if (kept < max) {
      const part = chunk.subarray(0, max - kept);
      chunks.push(part);
      kept += part.length;
    }
    // A receiver streaming without end is not worth a connection: drop it.
    if (seen > Math.max(max, 1) * 50) break;
  }
  // Stored in jsonb/text, which cannot hold U+0000 whatever a receiver sends.
  return stripNul(Buffer.concat(chunks).toString('utf8'));
}

const describe = (err: unknown): string => {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
};

/**
 * One signed POST (docs/webhooks.md, "What a receiver can count on"): 2xx is success, redirects are not followed, the
 * response is kept up to the configured size and always consumed.
 */
export async function postWebhook(
  config: Config,
  /** `headers`: the integration's custom headers, opened; sent first, so none can replace one of ours. */
  target: { url: string; secrets: readonly string[]; headers?: Record<string, string> },
  eventId: string,
  body: string,
  /**
   * The trace context stored with the event (tracing on): the request's span joins that trace and
   * the receiver gets a `traceparent` of it.
   */
  trace?: TraceCarrier | null,
): Promise<AttemptResult> {
  const requestedAt = new Date();
  const started = performance.now();
  const { 'webhook-signature': signature, ...unsigned } = signedHeaders(
    target.secrets,
    eventId,
    body,
    requestedAt,
  );
  const custom = target.headers ?? {};
  const ours: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'payment-links-webhooks/1.0',
    ...unsigned,
  };
  // The request as the delivery log keeps it: custom header values are credentials, so only masked.
  const requestHeaders: Record<string, string> = { ...maskedValues(custom), ...ours };
  const finish = (
    partial: Omit<AttemptResult, 'requestedAt' | 'durationMs' | 'requestHeaders' | 'requestBody'>,
  ): AttemptResult => ({
    requestedAt,
    durationMs: Math.round(performance.now() - started),
    requestHeaders,
    requestBody: body,
    ...partial,
  });
  try {
    const url = checkUrlShape(target.url, config.webhooks.allowPrivateTargets);
    const headers = { ...custom, ...ours, 'webhook-signature': signature };
    const res = await withStoredTrace(trace, async () => {
      const sent = await request(url, {
        method: 'POST',
        dispatcher: agentFor(config),
        headers,
        body,
        signal: AbortSignal.timeout(config.webhooks.timeoutMs),
      });
      try {
        const text = await readCapped(sent.body, config.webhooks.responseBodyMaxBytes);
        return { statusCode: sent.statusCode, headers: sent.headers, text };
      } finally {
        if (!sent.body.destroyed) sent.body.destroy();
      }
    });
    const retryAfter = res.headers['retry-after'];
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return finish({
      statusCode: res.statusCode,
      ok,
      error: ok ? null : `HTTP ${res.statusCode}`,
      responseBody: res.text,
      retryAfterSeconds: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
    });
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof UnsafeTargetError ? err.cause : err;
    return finish({
      statusCode: null,
      ok: false,
      error: stripNul(describe(cause)).slice(0, 500),
      responseBody: null,
      retryAfterSeconds: null,
    });
  }
}
