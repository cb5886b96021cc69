/**
 * The config of the webhook kinds (`webhook`, `automation_webhook`, `notification_topic`,
 * `database_webhook`): where events are POSTed, the secret that signs them, custom headers.
 */
import { references } from '../../../shared/validation/references.js';
import { v } from '../../../shared/validation/typed.js';
import {
  forbiddenHeaderName,
  HEADER_LIMITS,
  HEADER_MASK,
  HEADER_NAME_PATTERN,
  HEADER_VALUE_PATTERN,
} from './headers.js';

/**
 * `config.headers`: at most ten, names as HTTP allows and none of ours, values of visible ASCII (or
 * the mask, to keep a stored value in a PATCH). Errors are under `config.headers`.
 */
const HEADERS_DESCRIPTION =
  `Sent with every attempt: at most ${HEADER_LIMITS.count}, not content-type, content-length, host, ` +
  'user-agent, webhook-* nor the connection headers; values up to 1,024 characters, stored encrypted ' +
  `and shown as "${HEADER_MASK}" (send "${HEADER_MASK}" back to keep a stored value). Omitted in a PATCH: ` +
  'kept; `{}`: none.';

/** `keep`: the mask may stand for a stored value (updates); a new integration has none to keep. */
const customHeaders = (keep: boolean) =>
  v
    .record(
      v
        .string()
        .max(HEADER_LIMITS.nameLength)
        .pattern(HEADER_NAME_PATTERN)
        .custom((name: string, helpers) => {
          const why = forbiddenHeaderName(name);
          return why === undefined ? name : helpers.message({ custom: `is not allowed (${why})` });
        })
        .messages({ 'string.pattern.base': 'is not an HTTP header name' }),
      v
        .string()
        .max(HEADER_LIMITS.valueLength)
        .pattern(keep ? new RegExp(`${HEADER_VALUE_PATTERN.source}|^${HEADER_MASK}$`) : HEADER_VALUE_PATTERN)
        .messages({ 'string.pattern.base': 'must be visible ASCII characters (spaces and tabs inside)' }),
      HEADER_LIMITS.count,
    )
    // The mask keeps a stored value: whether one exists is stored data.
    .meta(references({}))
    .description(HEADERS_DESCRIPTION);

const webhookTarget = {
  url: v
    .required(v.string().max(2048))
    .description(
      'Where events are POSTed: an absolute https URL whose host resolves to public addresses only ' +
        '(http and private addresses too where ALLOW_PRIVATE_WEBHOOK_TARGETS is on); no credentials',
    )
    // Whether a URL is accepted depends on DNS and configuration, not on its shape alone.
    .meta({ format: 'uri', ...references({}) }),
  secret: v.string().max(256).description('Signing secret; generated (`whsec_…`) when absent'),
};

/** What the service stores for a webhook-kind type (a create, or an update with masks to keep). */
export const webhookConfig = v.object({ ...webhookTarget, headers: customHeaders(true) });
export const webhookConfigOfCreate = v.object({ ...webhookTarget, headers: customHeaders(false) });

/**
 * The webhook config as a PATCH's alternatives read it: headers only as an object of strings. A
 * failing alternative would be reported as the whole `config` not fitting any shape; the kind checks
 * the config against `webhookConfig` again, so a bad header is a 400 under `config.headers`.
 */
export const webhookConfigOfPatch = v.object({
  ...webhookTarget,
  headers: v.map(v.string(), v.string().allow('')).description(HEADERS_DESCRIPTION).meta(references({})),
});
