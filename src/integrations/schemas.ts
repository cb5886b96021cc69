import { EVENT_KINDS, isEventKind, type EventKind } from '../events/kinds.js';
import { references } from '../shared/validation/references.js';
import { v, type Output, type Typed } from '../shared/validation/typed.js';
import { FILTER_LIMITS, FILTER_PATH_PATTERN, type FilterValue } from './filters.js';
import { integrationKinds } from './kinds/registry.js';
import type { IntegrationKind } from './kinds/kind.js';
import { INTEGRATION_TYPES, WEBHOOK_KIND_TYPES, type IntegrationType } from './kinds/types.js';

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

/** The `events` of a type that receives no webhooks: always empty. */
const noEvents = () =>
  v.produces<EventKind[]>()(v.array(v.string()).max(0)).messages({
    'array.max': 'must be empty: an invoice integration acts on its own trigger and receives no webhooks',
  });

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

const CONFIG_DESCRIPTION =
  `Webhook-kind types (${WEBHOOK_KIND_TYPES.map((t) => `\`${t}\``).join(', ')}): \`url\` and optional \`secret\` ` +
  '(generated as `whsec_…` when absent). Other types: string values, possibly none. `gateway`: `provider` is ' +
  '`mercadopago` (the default where the deployment has a Mercado Pago application) or `dev` (the default ' +
  'otherwise; refused in production); once connected, the service adds `account_id`, `public_key` and ' +
  '`connected_at` (sent in a request, these are ignored). `ad_pixel`: `provider` `meta` (`pixel_id`, ' +
  '`access_token`, optional `test_event_code` and `browser_pixel`) or `google_analytics` (`measurement_id`, ' +
  '`api_secret`); the credential is stored encrypted and shown as `••••` (send `••••` back to keep it).';

type ConfigSchema = Typed<Record<string, unknown>>;

/** The kinds' config schemas, each once, with the types that use it (kinds may share one). */
function configSchemas(
  pick: (kind: IntegrationKind) => ConfigSchema,
): Array<[ConfigSchema, IntegrationType[]]> {
  const groups = new Map<ConfigSchema, IntegrationType[]>();
  for (const kind of integrationKinds())
    groups.set(pick(kind), [...(groups.get(pick(kind)) ?? []), ...kind.types]);
  return [...groups];
}

/** On creation the type is in the body, so the config's shape follows from it: its kind's. */
const configForType = () => {
  const groups = configSchemas((kind) => kind.createConfig);
  const last = groups.pop();
  if (!last) throw new Error('no integration kinds');
  return groups
    .reduceRight<ConfigSchema>(
      (otherwise, [schema, types]) => v.when('type', types, schema, otherwise),
      last[0],
    )
    .description(CONFIG_DESCRIPTION);
};

/**
 * On update the type may be the stored one, which no schema knows: the config must have one of the
 * kinds' shapes, and the service checks it against the integration's type (so a 400 under `config`
 * can depend on stored data).
 */
const configOfEitherType = () => {
  const shapes = configSchemas((kind) => kind.updateConfig).map(([schema]) => schema);
  const last = shapes.pop();
  if (!last) throw new Error('no integration kinds');
  return shapes
    .reduceRight<ConfigSchema>((rest, shape) => v.oneOf(shape, rest), last)
    .messages({
      'alternatives.match':
        'must have a url (and an optional secret) for a webhook-kind type, a provider and its keys for ad_pixel, ' +
        'or string values for the other types',
    })
    .description(CONFIG_DESCRIPTION)
    .meta(references({}));
};

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

const createBody = () =>
  v.required(
    v.object({
      type: v.required(type()),
      config: v.required(configForType()),
      // An invoice integration acts on its own trigger (docs/invoices.md), so it subscribes to nothing.
      events: v.required(v.when('type', ['invoice'], noEvents(), events())),
      is_active: v.strictBoolean().meta({ default: true }),
      send_to_all_products: v.strictBoolean().meta({ default: false }),
      rate_limit_per_second: rateLimit().meta({ default: null }),
      filter: filter().meta({ default: null }),
    }),
  );
const updateBody = () =>
  v.required(
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
export type IntegrationInput = Output<ReturnType<typeof updateBody>>;

let bodies: { create: ReturnType<typeof createBody>; update: ReturnType<typeof updateBody> } | undefined;

/**
 * The bodies of a create and an update (validation, types and the OpenAPI request, from one schema
 * each), built on first use: the `gateway` type's config schema is its kind's, which the gateways
 * room provides at start-up (kinds/connection.ts).
 */
export const integrationBodies = () => (bodies ??= { create: createBody(), update: updateBody() });

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
