/**
 * An integration kind: what one `type` of integration is. What every integration has (company, type,
 * active, events, filter, products, the breaker, the delivery log) is the integration core's
 * (`src/integrations/`) and the delivery engine's (`src/webhooks/`), the same for every kind. A kind
 * adds, in a room of its own under `kinds/`, how its config is checked, stored and shown (its
 * secrets sealed at rest, masked in answers), which events it receives, and, when it receives any,
 * how one delivery is sent and its answer read (the destination port). Adding a kind is its room and
 * one line of `registry.ts` (docs/architecture.md, "Adding an integration kind").
 */
import type { TraceCarrier } from '../../shared/tracing.js';
import type { AppContext } from '../../shared/context.js';
import type { Config } from '../../shared/config.js';
import type { Typed } from '../../shared/validation/typed.js';
import type { IntegrationType } from './types.js';

/** A value of a stored config. */
export type ConfigValue = string | number | boolean;
/** The `config` column: what a kind keeps in the clear (its secrets are sealed apart). */
export type StoredConfig = Record<string, ConfigValue>;

/**
 * Which of its company's events the fan-out hands an integration (given its `events`, filter and
 * products): `all`, test mode's too (the webhook kinds); `live` ones only (a third party that must
 * never see a test sale); `none` (a kind that receives no events, or one not configured to).
 */
export const RECEIVES = ['all', 'live', 'none'] as const;
export type Receives = (typeof RECEIVES)[number];

/** Names to values sealed under CREDENTIALS_ENCRYPTION_KEY (`src/shared/credentials.ts`). */
export type SealedValues = Record<string, string>;

/**
 * Sealed groups of an integration's row: `headers` (a webhook's custom headers, names ignore case)
 * and `secrets` (any other kind's credentials: an access token, an API token).
 */
export const SEALED_GROUPS = ['headers', 'secrets'] as const;
export type SealedGroup = (typeof SEALED_GROUPS)[number];

/** What a config check needs: the deployment's settings. */
export interface KindDeps {
  config: Config;
}

/** An integration as a kind sees it when its config changes (the stored one) or is shown. */
export interface KindRow {
  id: number;
  type: string;
  config: StoredConfig;
  headers: SealedValues | null;
  secrets: SealedValues | null;
}

/** A config change as the request sent it, and what is stored already (an update of the same kind). */
export interface ConfigInput {
  type: string;
  config: Record<string, unknown>;
  stored: KindRow | undefined;
}

/**
 * A config as the kind accepted it: the clear part, and for each sealed group the values the request
 * gave (plain, or the mask to keep a stored one); a group left undefined keeps what is stored, `{}`
 * clears it.
 */
export interface CheckedConfig {
  config: StoredConfig;
  sealed?: Partial<Record<SealedGroup, Record<string, string>>>;
  receives: Receives;
}

/** Who is looking at an integration: owners and members see more than read-only keys. */
export interface KindView {
  revealSecret: boolean;
}

/** The config as answers show it: secrets masked. */
export type WireConfig = Record<string, ConfigValue | Record<string, string>>;

/** One event to deliver: the envelope as the outbox stored it. */
export interface DeliveryEvent {
  id: string;
  payload: Record<string, unknown>;
  /** The trace the event was recorded in (tracing on), continued by the request. */
  traceContext: TraceCarrier | null;
}

/** The integration a delivery goes to, as the engine reads it at each attempt (never carried in jobs). */
export interface DeliveryTarget extends KindRow {
  /** The signing secret a rotation replaced, while it still signs. */
  previousSecret: string | null;
}

/**
 * One attempt's outcome, as the delivery log keeps it and the engine reads it (retry, breaker,
 * pause): `ok` is success; `retryAfterSeconds` a wait the destination asked for.
 */
export interface AttemptResult {
  requestedAt: Date;
  durationMs: number;
  /** Null when no response arrived (network error, timeout, refused target, nothing to send). */
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  retryAfterSeconds: number | null;
  ok: boolean;
  /** The request as built, credentials masked (null when nothing was sent). */
  requestHeaders: Record<string, string> | null;
  requestBody: string | null;
}

/** The destination port: how one delivery of an event to an integration of this kind is made. */
export interface Destination {
  /**
   * Builds the request for one event, sends it, and reads the answer. Never throws for what the
   * destination did: a failure is an AttemptResult (the engine retries it, counts it for the breaker).
   */
  attempt(ctx: AppContext, target: DeliveryTarget, event: DeliveryEvent): Promise<AttemptResult>;
}

export interface IntegrationKind {
  /** The types this kind serves (the four webhook types share one kind). */
  readonly types: readonly IntegrationType[];
  /** The config a create accepts for these types (validation and the OpenAPI request, from one schema). */
  readonly createConfig: Typed<Record<string, unknown>>;
  /**
   * What a PATCH's config may look like for these types, before the stored type is known (the
   * service checks it again through `check`).
   */
  readonly updateConfig: Typed<Record<string, unknown>>;
  /** Checks a config (against the deployment too: a URL guard, a provider's settings) and says what to store. */
  check(deps: KindDeps, input: ConfigInput): Promise<CheckedConfig>;
  /** The config as answers show it to `view`. */
  present(row: KindRow, view: KindView): WireConfig;
  /** Whether its events may be narrowed by a `filter` of body paths. */
  readonly filterable: boolean;
  /** Whether it has a signing secret that can be rotated. */
  readonly rotatesSecret: boolean;
  /** Whether a test send (an example event, now) can be made to it. */
  readonly testSends: boolean;
  /** How deliveries are made; absent: the kind receives no events (its `receives` is always `none`). */
  readonly destination?: Destination;
}

/** A request that sent nothing (no URL, a credential that does not open…): a failed attempt at once. */
export const nothingSent = (error: string): AttemptResult => ({
  requestedAt: new Date(),
  durationMs: 0,
  statusCode: null,
  ok: false,
  error,
  responseBody: null,
  retryAfterSeconds: null,
  requestHeaders: null,
  requestBody: null,
});
