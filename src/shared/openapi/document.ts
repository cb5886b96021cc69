import type Joi from 'joi';
import type { Operation, Route } from '../http/operation.js';
import { isRequired, objectKeys, toJsonSchema } from '../validation/json-schema.js';
import { errorResponses, errorSchema, responseRef } from './builders.js';
import type { JsonSchema, OpenApiDocument, OperationObject, PathItem } from './types.js';

export interface DocumentSpec {
  info: OpenApiDocument['info'];
  servers: OpenApiDocument['servers'];
  routes: Route[];
  /** Named schemas the responses refer to (`#/components/schemas/…`). */
  schemas: Record<string, JsonSchema>;
  /** Responses every authenticated operation of this API can give besides 401 and 403 (402, 429). */
  authenticatedResponses?: Record<string, JsonSchema>;
  /** Headers every successful authenticated response carries (rate-limit fields). */
  successHeaders?: Record<string, JsonSchema>;
  /** Requests the service sends to its clients (OpenAPI 3.1 `webhooks`), written whole by the caller. */
  webhooks?: Record<string, PathItem>;
}

function parameters(location: 'path' | 'query' | 'header', schema: Joi.Schema | undefined): JsonSchema[] {
  if (!schema) return [];
  return objectKeys(schema).map(({ name, required, schema: property }) => {
    const { description, ...rest } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required,
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

/** The responses an operation can give because of what it is, whatever its handler does. */
function derivedResponses(
  op: Operation,
  authenticated: Record<string, JsonSchema>,
): Record<string, JsonSchema> {
  const { body } = op.request;
  const out: Record<string, JsonSchema> = {};
  // A request body is parsed (and may be refused) whether or not the operation reads one; any query
  // is checked for bad percent-encoding and U+0000, so every operation can answer 400.
  const carriesBody = body !== undefined || ['post', 'put', 'patch'].includes(op.method);
  out['400'] = responseRef('ValidationError');
  if (carriesBody) {
    out['413'] = responseRef('PayloadTooLarge');
    out['415'] = responseRef('UnsupportedMediaType');
  }
  if (!op.public) {
    out['401'] = responseRef('AuthenticationError');
    out['403'] = responseRef('PermissionError');
    Object.assign(out, authenticated);
  }
  out['500'] = responseRef('ServerError');
  out['503'] = responseRef('ServiceUnavailable');
  return out;
}

export function operationObject(
  op: Operation,
  authenticated: Record<string, JsonSchema> = {},
): OperationObject {
  const { params, query, headers, body } = op.request;
  const parameterList = [
    ...parameters('path', params),
    ...parameters('query', query),
    ...parameters('header', headers),
  ];
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: op.tags,
    ...(op.public ? { security: [] } : {}),
    ...(parameterList.length > 0 ? { parameters: parameterList } : {}),
    ...(body
      ? {
          requestBody: {
            required: isRequired(body),
            content: { 'application/json': { schema: toJsonSchema(body) } },
          },
        }
      : {}),
    responses: { ...derivedResponses(op, authenticated), ...op.responses },
  };
}

/** An OpenAPI 3.1 document of exactly the routes an app mounts. */
export function buildDocument(spec: DocumentSpec): OpenApiDocument {
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: spec.info,
    servers: spec.servers,
    paths: {},
    ...(spec.webhooks ? { webhooks: spec.webhooks } : {}),
    components: {
      schemas: { Error: errorSchema, ...spec.schemas },
      responses: errorResponses,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    },
    security: [{ bearerAuth: [] }],
  };
  for (const { operation } of spec.routes) {
    const item = (doc.paths[operation.path] ??= {});
    if (item[operation.method])
      throw new Error(`OpenAPI: ${operation.method} ${operation.path} is declared twice`);
    const object = operationObject(operation, spec.authenticatedResponses);
    if (!operation.public && spec.successHeaders) withSuccessHeaders(object, spec.successHeaders);
    item[operation.method] = object;
  }
  doc.components.schemas = referencedSchemas(doc);
  return doc;
}

function withSuccessHeaders(object: OperationObject, headers: Record<string, JsonSchema>): void {
  for (const [code, response] of Object.entries(object.responses)) {
    if (!code.startsWith('2') || '$ref' in response) continue;
    object.responses[code] = {
      ...response,
      headers: { ...headers, ...(response.headers as JsonSchema | undefined) },
    };
  }
}

/** Only the component schemas the document refers to, directly or through another schema. */
function referencedSchemas(doc: OpenApiDocument): Record<string, JsonSchema> {
  const all = doc.components.schemas;
  const kept: Record<string, JsonSchema> = {};
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const name =
          key === '$ref' && typeof item === 'string'
            ? /^#\/components\/schemas\/(.+)$/.exec(item)?.[1]
            : undefined;
        if (name !== undefined && !(name in kept) && all[name]) {
          kept[name] = all[name];
          visit(all[name]);
        } else visit(item);
      }
    }
  };
  visit({ paths: doc.paths, webhooks: doc.webhooks, responses: doc.components.responses });
  return kept;
}
