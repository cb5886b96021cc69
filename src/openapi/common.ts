import type { JsonSchema, OpenApiDocument, OpenApiFragment } from './types.js';

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const responseRef = (name: string): JsonSchema => ({ $ref: `#/components/responses/${name}` });

export const json = (schema: JsonSchema, description: string): JsonSchema => ({
  description,
  content: { 'application/json': { schema } },
});

export const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
export const money: JsonSchema = { type: 'string', pattern: '^-?\\d+\\.\\d{2}$', examples: ['97.00'] };

const ERROR_TYPES = [
  'validation_error',
  'authentication_error',
  'permission_error',
  'not_found',
  'conflict',
  'rate_limited',
  'api_error',
];

export const errorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['type', 'message'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: ERROR_TYPES },
        message: { type: 'string' },
        fields: {
          type: 'object',
          additionalProperties: { type: 'array', items: { type: 'string' } },
        },
        retry_after_seconds: { type: 'integer', minimum: 0 },
      },
    },
  },
};

const errorResponse = (description: string): JsonSchema => json(ref('Error'), description);

export const errorResponses: Record<string, JsonSchema> = {
  ValidationError: errorResponse('Invalid or missing field; `fields` names it'),
  AuthenticationError: errorResponse('Credential missing, invalid or revoked'),
  PermissionError: errorResponse('Credential without access to this API, or company not active'),
  PaymentRequired: errorResponse('The company is not active (panel API)'),
  NotFound: errorResponse('Not found in this company (and mode)'),
  Conflict: errorResponse('Action impossible in the current state'),
  PayloadTooLarge: errorResponse('Request body over the size limit'),
  RateLimited: errorResponse('Request limit reached; `retry_after_seconds` tells how long to wait'),
  ServerError: errorResponse('Unexpected error; the message names the request id'),
};

/** Responses every authenticated operation can give. */
export const standardErrors = (
  ...extra: Array<'400' | '402' | '404' | '409' | '413' | '429'>
): Record<string, JsonSchema> => {
  const byCode: Record<string, string> = {
    '400': 'ValidationError',
    '402': 'PaymentRequired',
    '404': 'NotFound',
    '409': 'Conflict',
    '413': 'PayloadTooLarge',
    '429': 'RateLimited',
  };
  const out: Record<string, JsonSchema> = {
    '401': responseRef('AuthenticationError'),
    '403': responseRef('PermissionError'),
    '500': responseRef('ServerError'),
  };
  for (const code of extra) out[code] = responseRef(byCode[code] ?? 'ServerError');
  return out;
};

/** The document describes where it is served, without credentials. */
export const selfDescription = (path: string): OpenApiFragment => ({
  paths: {
    [path]: {
      get: {
        operationId: path.startsWith('/v1') ? 'getPaymentsOpenApi' : 'getPanelOpenApi',
        summary: 'This OpenAPI 3.1 document (public, no credentials)',
        tags: ['Meta'],
        security: [],
        responses: { '200': json({ type: 'object', required: ['openapi', 'info', 'paths'] }, 'The document') },
      },
    },
  },
});

/** Merges component fragments into one OpenAPI 3.1 document. */
export function buildDocument(
  head: Pick<OpenApiDocument, 'info' | 'servers'>,
  fragments: OpenApiFragment[],
): OpenApiDocument {
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    ...head,
    paths: {},
    components: {
      schemas: { Error: errorSchema },
      responses: errorResponses,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    },
    security: [{ bearerAuth: [] }],
  };
  for (const fragment of fragments) {
    for (const [path, item] of Object.entries(fragment.paths)) {
      doc.paths[path] = { ...doc.paths[path], ...item };
    }
    Object.assign(doc.components.schemas, fragment.schemas ?? {});
  }
  return doc;
}
