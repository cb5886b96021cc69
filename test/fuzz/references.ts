import type { ApiDocument, ApiName, Operation, ParamLocation, Schema } from './documents.js';
import { isSchema } from './documents.js';
import { sendRaw } from './raw-http.js';

/**
 * Fields whose valid values are data, not shapes: an offer code, a product id, a link id. No schema
 * can list them, so the suite takes them from the service itself.
 *
 * Proposed vendor extension, on the schema of a parameter or body property (or on the parameter
 * object):
 *
 *   "x-references": {
 *     "operationId": "listOffers",        // a GET operation of either document listing valid values
 *     "property": "code",                 // the property of each listed item that holds the value
 *     "where": { "status": "active" },    // optional: only items with these property values
 *     "parameters": { "id": "{id}" }      // optional: path parameters of that list operation,
 *   }                                     // `{name}` meaning this request's own path parameter
 *
 * An `x-references` without `operationId` marks a data-dependent field with no listing operation
 * (the OAuth `state`): any value may be unknown, nothing more.
 *
 * The fuzzer uses the listed values when generating requests, and accepts a 400 or 404 only when
 * every field it names is such a field holding a value that is not (or no longer) valid.
 */
export interface ReferenceSpec {
  operationId?: string;
  property?: string;
  where?: Record<string, unknown>;
  parameters?: Record<string, string>;
}

export interface FieldReference {
  location: ParamLocation | 'body';
  /** Parameter name, or dot path of a body property. */
  field: string;
  spec: ReferenceSpec;
}

function specFrom(value: unknown): ReferenceSpec | undefined {
  if (!isSchema(value)) return undefined;
  const spec: ReferenceSpec = {};
  if (typeof value.operationId === 'string') spec.operationId = value.operationId;
  if (typeof value.property === 'string') spec.property = value.property;
  if (isSchema(value.where)) spec.where = value.where;
  if (isSchema(value.parameters)) {
    spec.parameters = Object.fromEntries(Object.entries(value.parameters).map(([k, v]) => [k, String(v)]));
  }
  return spec;
}

/** `x-references` on a schema, also looked for inside `anyOf`/`oneOf` wrappers such as nullable ones. */
function referenceOn(schema: Schema): ReferenceSpec | undefined {
  const own = specFrom(schema['x-references']);
  if (own) return own;
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      const found = isSchema(branch) ? referenceOn(branch) : undefined;
      if (found) return found;
    }
  }
  return undefined;
}

function bodyReferences(schema: Schema, path: string, out: FieldReference[]): void {
  const properties = schema.properties;
  if (isSchema(properties)) {
    for (const [name, child] of Object.entries(properties)) {
      if (!isSchema(child)) continue;
      const field = path ? `${path}.${name}` : name;
      const spec = referenceOn(child);
      if (spec) out.push({ location: 'body', field, spec });
      bodyReferences(child, field, out);
    }
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) for (const b of branches) if (isSchema(b)) bodyReferences(b, path, out);
  }
}

/** Every data-dependent field of an operation, as the document marks it with `x-references`. */
export function referencesOf(op: Operation): FieldReference[] {
  const found: FieldReference[] = [];
  for (const p of op.parameters) {
    const spec = specFrom(p.raw['x-references']) ?? referenceOn(p.schema);
    if (spec) found.push({ location: p.in, field: p.name, spec });
  }
  if (op.body) bodyReferences(op.body.schema, '', found);
  return found;
}

export type Credentials = Record<ApiName, string>;

/**
 * Valid values of data-dependent fields, read through the documented list operations with the
 * tenant's own credentials. Cached until something may have changed them (any successful write).
 */
export class ReferencePools {
  private readonly cache = new Map<string, Promise<unknown[]>>();
  private readonly byId = new Map<string, { doc: ApiDocument; op: Operation }>();

  constructor(
    private readonly baseUrl: string,
    docs: ApiDocument[],
    private readonly credentials: Credentials,
  ) {
    for (const doc of docs) for (const op of doc.operations) this.byId.set(op.id, { doc, op });
  }

  invalidate(): void {
    this.cache.clear();
  }

  /** Valid values for `spec`, given the referencing request's path parameters. */
  values(spec: ReferenceSpec, pathParams: Record<string, unknown>, fresh = false): Promise<unknown[]> {
    if (!spec.operationId || !spec.property) return Promise.resolve([]);
    const found = this.byId.get(spec.operationId);
    if (!found) return Promise.resolve([]);
    let path = found.op.fullTemplate;
    for (const [name, template] of Object.entries(spec.parameters ?? {})) {
      const value = template.replace(/\{([^}]+)\}/g, (_m, key: string) => String(pathParams[key] ?? ''));
      if (value === '') return Promise.resolve([]);
      path = path.replace(`{${name}}`, encodeURIComponent(value));
    }
    if (/\{[^}]+\}/.test(path)) return Promise.resolve([]);
    // Ask for the longest page the list operation documents, so more existing values are known.
    const limit = found.op.parameters.find((p) => p.in === 'query' && p.name === 'limit');
    if (limit && typeof limit.schema.maximum === 'number') path += `?limit=${limit.schema.maximum}`;
    const key = `${found.doc.api} ${path} ${spec.property} ${JSON.stringify(spec.where ?? {})}`;
    let pending = fresh ? undefined : this.cache.get(key);
    if (!pending) {
      pending = this.list(found.doc.api, path, spec);
      this.cache.set(key, pending);
    }
    return pending;
  }

  private async list(api: ApiName, path: string, spec: ReferenceSpec): Promise<unknown[]> {
    const res = await sendRaw(this.baseUrl, {
      method: 'GET',
      path,
      headers: { authorization: `Bearer ${this.credentials[api]}` },
    });
    if (res.status !== 200) return [];
    const body = res.json;
    const items = Array.isArray(body) ? body : isSchema(body) && Array.isArray(body.data) ? body.data : [];
    const where = Object.entries(spec.where ?? {});
    const property = spec.property ?? '';
    return items
      .filter(isSchema)
      .filter((item) => where.every(([k, v]) => item[k] === v))
      .map((item) => item[property])
      .filter((v) => v !== undefined && v !== null);
  }
}
