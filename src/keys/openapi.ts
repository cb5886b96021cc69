import { dateTime, nullable } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import { KEY_PATTERN } from './key-format.js';

const keyProperties: Record<string, JsonSchema> = {
  id: { type: 'integer' },
  name: { type: 'string' },
  kind: { type: 'string', enum: ['payments', 'read_only'] },
  test: { type: 'boolean' },
  prefix: { type: 'string', description: 'First 12 characters of the key' },
  last4: { type: 'string', description: 'Last 4 characters of the key' },
  created_at: dateTime,
  last_used_at: nullable(dateTime),
  revoked_at: nullable(dateTime),
};
const keyRequired = Object.keys(keyProperties);

/** Named response schemas of the API keys endpoints. */
export const keySchemas: Record<string, JsonSchema> = {
  ApiKey: { type: 'object', additionalProperties: false, required: keyRequired, properties: keyProperties },
  CreatedApiKey: {
    type: 'object',
    additionalProperties: false,
    required: [...keyRequired, 'key'],
    properties: {
      ...keyProperties,
      key: {
        type: 'string',
        pattern: KEY_PATTERN.source,
        description: 'Full value, shown once',
      },
    },
  },
};
