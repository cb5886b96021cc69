import type { Operation } from './documents.js';
import { OMIT, RefValue, type GeneratedRequest } from './generate.js';
import type { RawRequest } from './raw-http.js';
import type { Credentials, FieldReference, ReferencePools } from './references.js';

export interface UsedReference {
  ref: FieldReference;
  value: unknown;
  /** False when the service listed no valid value and the schema's own value was sent. */
  fromService: boolean;
}

export interface ResolvedRequest {
  op: Operation;
  values: GeneratedRequest;
  used: UsedReference[];
}

function collectRefs(value: unknown, out: RefValue[]): void {
  if (value instanceof RefValue) {
    out.push(value);
    return;
  }
  if (Array.isArray(value)) for (const item of value) collectRefs(item, out);
  else if (value !== null && typeof value === 'object')
    for (const item of Object.values(value)) collectRefs(item, out);
}

function replaceRefs(value: unknown, chosen: Map<RefValue, unknown>): unknown {
  if (value instanceof RefValue) return chosen.get(value);
  if (Array.isArray(value)) return value.map((item) => replaceRefs(item, chosen));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceRefs(v, chosen)]));
  }
  return value;
}

/**
 * Puts real values into data-dependent fields: path parameters first, since a reference may
 * depend on another one (a delivery id belongs to the integration in the path).
 */
export async function resolveRequest(
  op: Operation,
  values: GeneratedRequest,
  pools: ReferencePools,
): Promise<ResolvedRequest> {
  const refs: RefValue[] = [];
  collectRefs(values.path, refs);
  const pathRefs = refs.length;
  collectRefs([values.query, values.headers, values.body === OMIT ? null : values.body], refs);
  const chosen = new Map<RefValue, unknown>();
  const used: UsedReference[] = [];
  const resolvedPath: Record<string, unknown> = {};
  const order = [
    ...refs
      .slice(0, pathRefs)
      .sort((a, b) => Number(Boolean(a.ref.spec.parameters)) - Number(Boolean(b.ref.spec.parameters))),
    ...refs.slice(pathRefs),
  ];
  for (const [name, v] of Object.entries(values.path)) if (!(v instanceof RefValue)) resolvedPath[name] = v;
  for (const ref of order) {
    const options = await pools.values(ref.ref.spec, resolvedPath);
    // One time in eight the schema's own value is sent even when real ones exist: a value that names
    // nothing must still be a 400 or 404, never a 5xx (an id beyond the database's integer range).
    const fromService = options.length > 0 && ref.pick % 8 !== 0;
    const value = fromService ? options[Math.floor(ref.pick / 8) % options.length] : ref.fallback;
    chosen.set(ref, value);
    used.push({ ref: ref.ref, value, fromService });
    if (ref.ref.location === 'path') resolvedPath[ref.ref.field] = value;
  }
  const resolved: GeneratedRequest = {
    path: replaceRefs(values.path, chosen) as Record<string, unknown>,
    query: replaceRefs(values.query, chosen) as Record<string, unknown>,
    headers: replaceRefs(values.headers, chosen) as Record<string, unknown>,
    body: values.body === OMIT ? OMIT : replaceRefs(values.body, chosen),
  };
  return { op, values: resolved, used };
}

/** How a parameter value travels in a URL or header: text as is, anything else as JSON text. */
export const paramText = (value: unknown): string =>
  typeof value === 'string' ? value : JSON.stringify(value);

export function buildPath(
  op: Operation,
  path: Record<string, unknown>,
  encode: (text: string) => string = encodeURIComponent,
): string {
  return op.fullTemplate.replace(/\{([^}]+)\}/g, (_m, name: string) => encode(paramText(path[name])));
}

/**
 * A query as OpenAPI's default for query parameters (`style: form`, `explode: true`) writes it: an
 * array parameter is repeated once per item (`type=a&type=b`), an empty one left out.
 */
export function buildQuery(query: Record<string, unknown>): string {
  const parts = Object.entries(query).flatMap(([k, v]) =>
    (Array.isArray(v) ? v : [v]).map(
      (item) => `${encodeURIComponent(k)}=${encodeURIComponent(paramText(item))}`,
    ),
  );
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

export function authHeaders(op: Operation, credentials: Credentials): Record<string, string> {
  return op.isPublic ? {} : { authorization: `Bearer ${credentials[op.api]}` };
}

/** The request as the document describes it: JSON body, parameters in their places. */
export function toRawRequest(req: ResolvedRequest, credentials: Credentials): RawRequest {
  const { op, values } = req;
  const headers: Record<string, string> = { ...authHeaders(op, credentials) };
  for (const [name, value] of Object.entries(values.headers)) headers[name] = paramText(value);
  const raw: RawRequest = {
    method: op.method,
    path: buildPath(op, values.path) + buildQuery(values.query),
    headers,
  };
  if (values.body !== OMIT) {
    headers['content-type'] = 'application/json';
    raw.body = JSON.stringify(values.body);
  }
  return raw;
}
