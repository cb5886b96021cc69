import { OpenApiResponseValidator } from '../helpers/openapi-validator.js';
import { sendRaw } from './raw-http.js';

/** A JSON Schema object as the documents write it; everything is optional and checked at use. */
export interface Schema {
  [keyword: string]: unknown;
}

export type ApiName = 'payments' | 'panel';
export type ParamLocation = 'path' | 'query' | 'header';

export interface Parameter {
  name: string;
  in: ParamLocation;
  required: boolean;
  schema: Schema;
  /** The parameter object itself, where a vendor extension such as `x-references` may sit. */
  raw: Schema;
}

export interface Operation {
  api: ApiName;
  id: string;
  method: string;
  /** As written in the document (relative to the server URL). */
  template: string;
  /** Path on this service: the server URL's path plus the template. */
  fullTemplate: string;
  parameters: Parameter[];
  body?: { required: boolean; schema: Schema; mediaTypes: string[] };
  statuses: Set<string>;
  /** `security: []` on the operation: no credential at all. */
  isPublic: boolean;
}

export interface ApiDocument {
  api: ApiName;
  /** Where the service serves it; the only addresses the suite knows in advance. */
  url: string;
  /** Path of the document's first server URL (`''` for the payments API, `/panel/v1` for the panel). */
  prefix: string;
  raw: Schema;
  operations: Operation[];
  validator: OpenApiResponseValidator;
  /** Methods the document gives each path template, upper-case. */
  methodsByTemplate: Map<string, string[]>;
}

export const DOCUMENT_URLS: Record<ApiName, string> = {
  payments: '/v1/openapi.json',
  panel: '/panel/v1/openapi.json',
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Resolves local `$ref`s into a self-contained tree (siblings of `$ref` win over the target, as in
 * OpenAPI 3.1). A reference cycle is cut at a depth no request body reaches.
 */
export function dereference(root: Schema, node: unknown, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((item) => dereference(root, item, depth));
  if (!isSchema(node)) return node;
  if (depth > 40) return {};
  const ref = node.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    let target: unknown = root;
    for (const segment of ref.slice(2).split('/')) {
      const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      target = isSchema(target) ? target[key] : undefined;
    }
    const siblings = Object.fromEntries(Object.entries(node).filter(([key]) => key !== '$ref'));
    const resolved = dereference(root, target, depth + 1);
    return isSchema(resolved)
      ? { ...resolved, ...(dereference(root, siblings, depth + 1) as Schema) }
      : resolved;
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) out[key] = dereference(root, value, depth + 1);
  return out;
}

function parseOperations(api: ApiName, prefix: string, raw: Schema): Operation[] {
  const operations: Operation[] = [];
  const paths = isSchema(raw.paths) ? raw.paths : {};
  for (const [template, itemRaw] of Object.entries(paths)) {
    const item = dereference(raw, itemRaw) as Schema;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const op = item[method];
      if (!isSchema(op)) continue;
      const params = [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])].filter(isSchema);
      const parameters: Parameter[] = [];
      for (const p of params) {
        const location = p.in;
        // Cookie parameters are not used by this service; a document that adds one gets it ignored here.
        if (location !== 'path' && location !== 'query' && location !== 'header') continue;
        parameters.push({
          name: String(p.name),
          in: location,
          required: location === 'path' || p.required === true,
          schema: isSchema(p.schema) ? p.schema : {},
          raw: p,
        });
      }
      let body: Operation['body'];
      const requestBody = op.requestBody;
      if (isSchema(requestBody) && isSchema(requestBody.content)) {
        const mediaTypes = Object.keys(requestBody.content);
        const json = requestBody.content['application/json'];
        body = {
          required: requestBody.required === true,
          schema: isSchema(json) && isSchema(json.schema) ? json.schema : {},
          mediaTypes,
        };
      }
      const responses = isSchema(op.responses) ? op.responses : {};
      operations.push({
        api,
        id: typeof op.operationId === 'string' ? op.operationId : `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        fullTemplate: `${prefix}${template}`,
        parameters,
        ...(body ? { body } : {}),
        statuses: new Set(Object.keys(responses)),
        isPublic: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return operations;
}

type ValidatorDocument = ConstructorParameters<typeof OpenApiResponseValidator>[0];

/** Reads a document from the running service, so the suite follows whatever the service now says. */
export async function loadDocument(baseUrl: string, api: ApiName): Promise<ApiDocument> {
  const url = DOCUMENT_URLS[api];
  const res = await sendRaw(baseUrl, { method: 'GET', path: url });
  if (res.status !== 200 || !isSchema(res.json)) {
    throw new Error(`GET ${url} answered ${res.status}: ${res.text.slice(0, 300)}`);
  }
  const raw = res.json;
  const servers = Array.isArray(raw.servers) ? raw.servers : [];
  const first: unknown = servers[0];
  const serverUrl = isSchema(first) && typeof first.url === 'string' ? first.url : '/';
  const prefix = new URL(serverUrl, 'http://placeholder').pathname.replace(/\/+$/, '');
  const operations = parseOperations(api, prefix, raw);
  const methodsByTemplate = new Map<string, string[]>();
  for (const op of operations) {
    methodsByTemplate.set(op.fullTemplate, [...(methodsByTemplate.get(op.fullTemplate) ?? []), op.method]);
  }
  // The served JSON is the document the response validator checks against; its type is the helper's.
  const validator = new OpenApiResponseValidator(raw as unknown as ValidatorDocument, prefix);
  return { api, url, prefix, raw, operations, validator, methodsByTemplate };
}

/** `FUZZ_OPS` narrows a run to matching operation ids (a regular expression), for replaying one. */
export function selectedOperations(doc: ApiDocument, only: RegExp | undefined): Operation[] {
  return doc.operations.filter((op) => !only || only.test(op.id));
}

/** Path templates of the document as regular expressions over concrete paths. */
export function templateMatcher(fullTemplate: string): RegExp {
  const pattern = fullTemplate.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${pattern}$`);
}
