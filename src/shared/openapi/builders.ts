import { ERROR_TYPES } from '../errors.js';
import type { JsonSchema } from './types.js';

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const responseRef = (name: string): JsonSchema => ({ $ref: `#/components/responses/${name}` });

export const json = (schema: JsonSchema, description: string): JsonSchema => ({
  description,
  content: { 'application/json': { schema } },
});

export const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
export const money: JsonSchema = { type: 'string', pattern: '^-?\\d+\\.\\d{2}$', examples: ['97.00'] };

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
        type: { type: 'string', enum: [...ERROR_TYPES] },
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
  UnsupportedMediaType: errorResponse(
    'Request body that is not JSON, or in an unsupported encoding or charset',
  ),
  RateLimited: errorResponse('Request limit reached; `retry_after_seconds` tells how long to wait'),
  ServerError: errorResponse('Unexpected error; the message names the request id'),
  BadGateway: errorResponse(
    'The payment gateway (PSP) could not be reached or failed; nothing was changed, retry later',
  ),
  ServiceUnavailable: {
    ...errorResponse('A data store is unreachable for a moment; retry after `Retry-After` seconds'),
    headers: {
      'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
    },
  },
};

const ERROR_RESPONSE_OF = {
  '402': 'PaymentRequired',
  '404': 'NotFound',
  '409': 'Conflict',
  '429': 'RateLimited',
  '502': 'BadGateway',
} as const;

/** The documented error responses an operation gives beyond those its shape implies (400, 401, …). */
export const errors = (...codes: Array<keyof typeof ERROR_RESPONSE_OF>): Record<string, JsonSchema> =>
  Object.fromEntries(codes.map((code) => [code, responseRef(ERROR_RESPONSE_OF[code])]));

/** A response without a body (204, 302). */
export const noContent = (description: string): JsonSchema => ({ description });

export const arrayOf = (name: string, description: string): JsonSchema =>
  json({ type: 'array', items: ref(name) }, description);
