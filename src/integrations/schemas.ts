import { Joi, Segments } from 'celebrate';
import { INTEGRATION_TYPES, isEventKind } from './kinds.js';

const MAX_INT4 = 2_147_483_647;
export const idParam = Joi.number().integer().min(1).max(MAX_INT4);

/** `events` names its own field (not `events.3`) and lists what is unknown. */
const events = Joi.array()
  .items(Joi.string().max(100))
  .max(50)
  .unique()
  .custom((value: string[], helpers) => {
    const unknown = value.filter((kind) => !isEventKind(kind));
    return unknown.length === 0
      ? value
      : helpers.message({ custom: `unknown event kind: ${unknown.join(', ')}` });
  });

const type = Joi.string().valid(...INTEGRATION_TYPES);
/** Shape only; what the config must contain depends on the type and is checked by the service. */
const config = Joi.object().unknown(true);

export const listIntegrationsSchema = {
  [Segments.QUERY]: Joi.object({ type }),
};

export const integrationIdSchema = {
  [Segments.PARAMS]: Joi.object({ id: idParam.required() }),
};

export const createIntegrationSchema = {
  [Segments.BODY]: Joi.object({
    type: type.required(),
    config: config.required(),
    events: events.required(),
    is_active: Joi.boolean(),
    send_to_all_products: Joi.boolean(),
  }).required(),
};

export const updateIntegrationSchema = {
  ...integrationIdSchema,
  [Segments.BODY]: Joi.object({
    type,
    config,
    events,
    is_active: Joi.boolean(),
    send_to_all_products: Joi.boolean(),
  }).required(),
};

export const linkProductSchema = {
  ...integrationIdSchema,
  [Segments.BODY]: Joi.object({ product_id: idParam.required() }).required(),
};

export const productLinkParamsSchema = {
  [Segments.PARAMS]: Joi.object({ id: idParam.required(), product_id: idParam.required() }),
};

export const updateProductLinkSchema = {
  ...productLinkParamsSchema,
  [Segments.BODY]: Joi.object({ is_active: Joi.boolean().required() }).required(),
};

export const oauthAuthorizeSchema = {
  [Segments.QUERY]: Joi.object({ state: Joi.string().max(200).required() }).unknown(true),
};

export const oauthCallbackSchema = {
  [Segments.QUERY]: Joi.object({
    state: Joi.string().max(200).required(),
    code: Joi.string().max(2000).required(),
  }).unknown(true),
};

/** Config of the webhook-kind types: where to POST and how to sign. */
export const webhookConfigSchema = Joi.object({
  url: Joi.string().max(2048).required(),
  secret: Joi.string().min(1).max(256),
});

/** Config of the other types: free-form string values, possibly none. */
export const managedConfigSchema = Joi.object()
  .pattern(Joi.string().min(1).max(100), Joi.string().max(2000))
  .max(50);
