import type { Config } from '../../src/shared/config.js';
import { mountPath } from '../../src/shared/config.js';
import type { OpenApiDocument } from '../../src/shared/openapi/types.js';
import { OpenApiResponseValidator } from './openapi-validator.js';
import { noteSecretsIn } from './secrets.js';

export interface HttpResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  /** Bearer credential (API key or panel token). */
  auth?: string;
  body?: unknown;
  /** Sent as-is, not JSON-encoded (malformed bodies, wrong content types). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Skip OpenAPI validation (only for responses the document must not describe, e.g. health). */
  unvalidated?: boolean;
}

/**
 * A small HTTP client for tests. Every response from the payments API (`/v1`) and the panel API is
 * validated against the service's own OpenAPI documents.
 */
export class HttpClient {
  private validators:
    Promise<{ payments: OpenApiResponseValidator; panel: OpenApiResponseValidator }> | undefined;
  private readonly panelPrefix: string;

  constructor(
    readonly baseUrl: string,
    config: Config,
  ) {
    this.panelPrefix = mountPath(config.urls.panel);
  }

  /** The documents as the service serves them: what a client reads is what responses are checked against. */
  private documents() {
    const fetchDoc = async (path: string): Promise<OpenApiDocument> => {
      const res = await fetch(`${this.baseUrl}${path}`);
      return (await res.json()) as OpenApiDocument;
    };
    this.validators ??= Promise.all([
      fetchDoc('/v1/openapi.json'),
      fetchDoc(`${this.panelPrefix}/openapi.json`),
    ]).then(([payments, panel]) => ({
      payments: new OpenApiResponseValidator(payments, ''),
      panel: new OpenApiResponseValidator(panel, this.panelPrefix),
    }));
    return this.validators;
  }

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.auth) headers.authorization = `Bearer ${options.auth}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.text();
    noteSecretsIn(text);
    const contentType = res.headers.get('content-type');
    const parsed: unknown = text && contentType?.includes('json') ? JSON.parse(text) : text;
    if (!options.unvalidated) {
      const urlPath = path.split('?')[0] ?? path;
      if (urlPath.startsWith(`${this.panelPrefix}/`)) {
        (await this.documents()).panel.check(method, path, res.status, contentType, parsed);
      } else if (urlPath.startsWith('/v1/')) {
        (await this.documents()).payments.check(method, path, res.status, contentType, parsed);
      }
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = Record<string, unknown>>(path: string, options?: RequestOptions): Promise<HttpResponse<T>> {
    return this.request<T>('GET', path, options);
  }
  post<T = Record<string, unknown>>(path: string, options?: RequestOptions): Promise<HttpResponse<T>> {
    return this.request<T>('POST', path, options);
  }
  patch<T = Record<string, unknown>>(path: string, options?: RequestOptions): Promise<HttpResponse<T>> {
    return this.request<T>('PATCH', path, options);
  }
  delete<T = Record<string, unknown>>(path: string, options?: RequestOptions): Promise<HttpResponse<T>> {
    return this.request<T>('DELETE', path, options);
  }
}
