/**
 * Calls to a third-party JSON API the operator configured (a PSP): one pooled undici agent, a timeout
 * on the whole call, and every way of not getting an answer (refused, reset, timed out, not JSON)
 * reported as one error, so callers decide only between "it answered" and "try again later".
 * Nothing here logs: headers carry credentials.
 */
import { Agent, request } from 'undici';

/** No answer came: the call may or may not have reached the other side. */
export class UpstreamUnavailableError extends Error {
  override name = 'UpstreamUnavailableError';
}

export interface JsonAnswer {
  status: number;
  /** The parsed body; undefined when it was empty. */
  body: unknown;
}

export interface JsonCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as `application/x-www-form-urlencoded`. */
  form?: Record<string, string>;
  timeoutMs: number;
}

const RESPONSE_MAX_BYTES = 1024 * 1024;

let agent: Agent | undefined;
const sharedAgent = (): Agent =>
  (agent ??= new Agent({ keepAliveTimeout: 10_000, connections: 32, connect: { timeout: 10_000 } }));

export async function closeJsonClient(): Promise<void> {
  const closing = agent;
  agent = undefined;
  await closing?.close();
}

const reason = (err: unknown): string => {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? code : err.name;
  }
  return 'unknown error';
};

/** One call; throws UpstreamUnavailableError when no whole answer arrived in time. */
export async function callJson(call: JsonCall): Promise<JsonAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  let body: string | undefined;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  } else if (call.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(call.form).toString();
  }
  let text: string;
  let status: number;
  try {
    const res = await request(call.url, {
      method: call.method,
      headers,
      body,
      dispatcher: sharedAgent(),
      signal: AbortSignal.timeout(call.timeoutMs),
    });
    status = res.statusCode;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > RESPONSE_MAX_BYTES) {
        res.body.destroy();
        throw new UpstreamUnavailableError(`${call.method} ${new URL(call.url).pathname}: answer too large`);
      }
      chunks.push(chunk);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    if (err instanceof UpstreamUnavailableError) throw err;
    throw new UpstreamUnavailableError(`${call.method} ${new URL(call.url).pathname}: ${reason(err)}`);
  }
  if (text.trim() === '') return { status, body: undefined };
  try {
    return { status, body: JSON.parse(text) as unknown };
  } catch {
    // A proxy's HTML error page: as good as no answer for a server error, a refusal otherwise.
    if (status >= 500)
      throw new UpstreamUnavailableError(`${call.method} ${new URL(call.url).pathname}: HTTP ${status}`);
    return { status, body: { message: text.slice(0, 200) } };
  }
}
