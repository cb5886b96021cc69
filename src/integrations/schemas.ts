import { EVENT_KINDS, isEventKind, type EventKind } from '../events/kinds.js';
import { references } from '../shared/validation/references.js';
import { v, type Output } from '../shared/validation/typed.js';
import {
  forbiddenHeaderName,
  HEADER_LIMITS,
  HEADER_MASK,
  HEADER_NAME_PATTERN,
  HEADER_VALUE_PATTERN,
} from './custom-headers.js';
import { FILTER_LIMITS, FILTER_PATH_PATTERN, type FilterValue } from './filters.js';
import { INTEGRATION_TYPES, WEBHOOK_KIND_TYPES } from './types.js';

const MAX_INT4 = 2_147_483_647;
const id = () => v.integer().min(1).max(MAX_INT4);

/** `events` names its own field (not `events.3`) and lists what is unknown. */
const events = () =>
  v.produces<EventKind[]>()(
    v
      .array(v.string().max(100))
      .max(50)
      .unique()
      .custom((value: string[], helpers) => {
        const unknown = value.filter((kind) => !isEventKind(kind));
        return unknown.length === 0
          ? value
          : helpers.message({ custom: `unknown event kind: ${unknown.join(', ')}` });
      })
      .meta({ items: { type: 'string', enum: [...EVENT_KINDS] } }),
  );

const type = () => v.enum(INTEGRATION_TYPES);

/** Most attempts started per second across every worker process; null lifts the limit. */
const rateLimit = () =>
  v
    .nullable(v.strictInteger().min(1).max(1000))
    .description(
      'Most webhook attempts started per second for this integration, across every worker process; ' +
        'null (the default) for no limit',
    );

const filterScalar = () =>
  v.oneOf(v.oneOf(v.string().max(FILTER_LIMITS.valueLength), v.number()), v.strictBoolean());

/**
 * `filter`: dotted paths of the event body to a value or a list of values (any of them); every entry
 * must match for an event to be delivered. Whether a path exists is checked by the service against
 * the event schemas (400 under `filter`). Null (or `{}`) is no filter.
 */
const filter = () =>
  v
    .nullable(
      v.record(
        v.string().min(1).max(FILTER_LIMITS.pathLength).pattern(FILTER_PATH_PATTERN),
        v.produces<FilterValue | FilterValue[]>()(
          v.oneOf(filterScalar(), v.array(filterScalar()).min(1).max(FILTER_LIMITS.values)),
        ),
        FILTER_LIMITS.entries,
      ),
    )
    // Whether a path exists depends on the event schemas, which no JSON Schema keyword here states.
    .meta(references({}))
    .description(
      `Deliver only the events whose body matches every entry: a dotted path of the event body (e.g. ` +
        '`data.order.payment_method`, `data.purchase.payment_link.metadata.channel`) to a string, number or ' +
        `boolean, or a list of them (any of). At most ${FILTER_LIMITS.entries} entries; a path no event kind ` +
        'has is 400. Null or `{}`: every subscribed event is delivered. Events left out make no delivery.',
    );

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

/** Config of the webhook-kind types: where to POST and how to sign. */
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
const webhookConfigOfCreate = v.object({ ...webhookTarget, headers: customHeaders(false) });

/**
 * The webhook config as a PATCH's alternatives read it: headers only as an object of strings. A
 * failing alternative would be reported as the whole `config` not fitting either shape; the service
 * checks the config against `webhookConfig` again, so a bad header is a 400 under `config.headers`.
 */
const webhookConfigOfPatch = v.object({
  ...webhookTarget,
  headers: v.map(v.string(), v.string().allow('')).description(HEADERS_DESCRIPTION).meta(references({})),
});

/** Config of the other types: free-form string values, possibly none. */
export const managedConfig = v.map(v.string().max(100), v.string().allow('').max(2000)).max(50);

const CONFIG_DESCRIPTION =
  `Webhook-kind types (${WEBHOOK_KIND_TYPES.map((t) => `\`${t}\``).join(', ')}): \`url\` and optional \`secret\` ` +
  '(generated as `whsec_…` when absent). Other types: string values, possibly none. `gateway`: `provider` is ' +
  '`mercadopago` (the default where the deployment has a Mercado Pago application) or `dev` (the default ' +
  'otherwise; refused in production); once connected, the service adds `account_id`, `public_key` and ' +
  '`connected_at` (sent in a request, these are ignored).';

/** On creation the type is in the body, so the config's shape follows from it. */
const configForType = () =>
  v.when('type', WEBHOOK_KIND_TYPES, webhookConfigOfCreate, managedConfig).description(CONFIG_DESCRIPTION);

/**
 * On update the type may be the stored one, which no schema knows: the config must have one of the
 * two shapes, and the service checks it against the integration's type (so a 400 under `config` can
 * depend on stored data).
 */
const configOfEitherType = () =>
  v
    .oneOf(webhookConfigOfPatch, managedConfig)
    .messages({
      'alternatives.match':
        'must have a url (and an optional secret) for a webhook-kind type, or string values for the other types',
    })
    .description(CONFIG_DESCRIPTION)
    .meta(references({}));

export const integrationParams = v.object({
  id: v
    .required(id())
    .description('Integration id')
    .meta(references({ operationId: 'listIntegrations', property: 'id' })),
});
export const productLinkParams = v.object({
  id: v
    .required(id())
    .description('Integration id')
    .meta(references({ operationId: 'listIntegrations', property: 'id' })),
  product_id: v
    .required(id())
    .description('Product id (not the link id)')
    .meta(
      references({ operationId: 'listIntegrationProducts', property: 'product', parameters: { id: '{id}' } }),
    ),
});

export const listIntegrationsQuery = v.object({ type: type().description('Only integrations of this type') });

export const createIntegrationBody = v.required(
  v.object({
    type: v.required(type()),
    config: v.required(configForType()),
    events: v.required(events()),
    is_active: v.strictBoolean().meta({ default: true }),
    send_to_all_products: v.strictBoolean().meta({ default: false }),
    rate_limit_per_second: rateLimit().meta({ default: null }),
    filter: filter().meta({ default: null }),
  }),
);
export const updateIntegrationBody = v.required(
  v.object({
    type: type(),
    config: configOfEitherType(),
    events: events(),
    is_active: v.strictBoolean(),
    send_to_all_products: v.strictBoolean(),
    rate_limit_per_second: rateLimit(),
    filter: filter(),
  }),
);
export type IntegrationInput = Output<typeof updateIntegrationBody>;

export const linkProductBody = v.required(
  v.object({
    product_id: v
      .required(v.strictInteger().min(1).max(MAX_INT4))
      .meta(references({ operationId: 'listProducts', property: 'id' })),
  }),
);
export const updateProductLinkBody = v.required(v.object({ is_active: v.required(v.strictBoolean()) }));

export const oauthAuthorizeQuery = v
  .object({ state: v.required(v.string().max(200)).meta(references({})) })
  .unknown(true);
export const oauthCallbackQuery = v
  .object({
    state: v.required(v.string().max(200)).meta(references({})),
    code: v.required(v.string().max(2000)),
  })
  .unknown(true);

/** Seconds the replaced secret keeps signing after a rotation (docs/api.md, "Webhook operations"). */
export const ROTATION_OVERLAP = { max: 604_800, default: 86_400 } as const;
export const rotateSecretBody = v.object({
  old_secret_expires_in_seconds: v
    .defaulted(v.strictInteger().min(0).max(ROTATION_OVERLAP.max), ROTATION_OVERLAP.default)
    .description(
      'How long the replaced secret keeps signing beside the new one (0: it stops at once). Default one day.',
    ),
});
export type RotateSecretInput = Output<typeof rotateSecretBody>;
