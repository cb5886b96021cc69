import http from 'node:http';

/**
 * Requests as bytes. fetch normalises paths, re-encodes bad escapes, refuses some methods and
 * always sends well-formed UTF-8; the hostile cases need none of that done for them.
 */
export interface RawRequest {
  method: string;
  /** Sent exactly as given (already percent-encoded, or deliberately not). */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  contentType: string;
  text: string;
  /** Parsed when the response says it is JSON; `undefined` otherwise or when it does not parse. */
  json: unknown;
  jsonError?: string;
  ms: number;
}

export class NoAnswerError extends Error {}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

export const REQUEST_TIMEOUT_MS = 15_000;

export function sendRaw(
  baseUrl: string,
  req: RawRequest,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<RawResponse> {
  const base = new URL(baseUrl);
  const started = Date.now();
  const body = typeof req.body === 'string' ? Buffer.from(req.body, 'utf8') : req.body;
  const headers: Record<string, string> = { ...req.headers };
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
    headers['content-length'] = String(body.length);
  }
  return new Promise<RawResponse>((resolve, reject) => {
    const request = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.path,
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const contentType = String(res.headers['content-type'] ?? '');
          let json: unknown;
          let jsonError: string | undefined;
          if (contentType.includes('json') && text.length > 0) {
            try {
              json = JSON.parse(text) as unknown;
            } catch (err) {
              jsonError = err instanceof Error ? err.message : String(err);
            }
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            contentType,
            text,
            json,
            ...(jsonError !== undefined ? { jsonError } : {}),
            ms: Date.now() - started,
          });
        });
      },
    );
    request.setTimeout(timeoutMs, () => {
      request.destroy(new NoAnswerError(`no answer within ${timeoutMs} ms`));
    });
    request.on('error', (err) => {
      reject(err instanceof NoAnswerError ? err : new NoAnswerError(`connection failed: ${err.message}`));
    });
    if (body !== undefined) request.end(body);
    else request.end();
  });
}
