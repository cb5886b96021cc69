/**
 * The integration types the service knows, and which of them receive webhooks (`webhook`, `automation_webhook`,
 * `notification_topic`, `database_webhook`): one module,
 * so the panel API (validation) and the event engine (routing) agree.
 */

/** Types this service dispatches to over HTTP; their config is `{url, secret}`. */
export const WEBHOOK_KIND_TYPES = [
  'webhook',
  'automation_webhook',
  'notification_topic',
  'database_webhook',
] as const;
export type WebhookKindType = (typeof WEBHOOK_KIND_TYPES)[number];

/** Types that are managed (CRUD, product links) but never receive HTTP dispatch or test events. */
export const MANAGED_TYPES = ['ad_pixel', 'gateway', 'members_area', 'invoice'] as const;
export type ManagedType = (typeof MANAGED_TYPES)[number];

export const INTEGRATION_TYPES = [...WEBHOOK_KIND_TYPES, ...MANAGED_TYPES] as const;
export type IntegrationType = (typeof INTEGRATION_TYPES)[number];

export const isWebhookKindType = (value: string): value is WebhookKindType =>
  (WEBHOOK_KIND_TYPES as readonly string[]).includes(value);
