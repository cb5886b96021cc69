/**
 * Every integration kind, one line each: the integration core and the delivery engine find a type's
 * kind here and nowhere else. The `gateway` type's kind is the gateways room's (a PSP connection,
 * not an event destination: `connection.ts`); it provides it at start-up.
 */
import { adPixelKind } from './ad-pixel/index.js';
import type { AccountConnection, ConnectionKind } from './connection.js';
import { invoiceKind } from './invoice/index.js';
import type { IntegrationKind } from './kind.js';
import { membersAreaKind } from './members-area.js';
import { INTEGRATION_TYPES, type IntegrationType } from './types.js';
import { webhookKind } from './webhook/index.js';

/** The types whose kind a room above this one provides at start-up (`provideKind`). */
export const PROVIDED_TYPES: readonly IntegrationType[] = ['gateway'];

/** Every kind in the order the request schemas list them; a provided type stands for its kind. */
const LISTED: ReadonlyArray<IntegrationKind | IntegrationType> = [
  webhookKind,
  'gateway',
  adPixelKind,
  invoiceKind,
  membersAreaKind,
];

/** The kinds this room holds. */
const BUILT_IN_KINDS = LISTED.filter((kind): kind is IntegrationKind => typeof kind !== 'string');

const byType = new Map<string, IntegrationKind>(
  BUILT_IN_KINDS.flatMap((kind) => kind.types.map((type) => [type, kind] as const)),
);
// A type with no kind, or with two, is a mistake of this file: the process refuses to start.
for (const type of INTEGRATION_TYPES)
  if (!byType.has(type) && !PROVIDED_TYPES.includes(type))
    throw new Error(`integration type ${type} has no kind in kinds/registry.ts`);
if (byType.size !== BUILT_IN_KINDS.reduce((n, kind) => n + kind.types.length, 0))
  throw new Error('an integration type has two kinds in kinds/registry.ts');

const provided = new Map<string, ConnectionKind>();

const notProvided = (type: string): Error =>
  new Error(
    `integration type ${type} has no kind: the gateways room provides it at start-up ` +
      '(installGateways() in src/gateways/install.ts), and this process did not call it',
  );

/** Fills in a provided type's kind (the gateways room, at start-up); again with the same kind is a no-op. */
export function provideKind(kind: ConnectionKind): void {
  for (const type of kind.types) {
    if (!PROVIDED_TYPES.includes(type))
      throw new Error(`integration type ${type} is not provided at start-up`);
    const before = provided.get(type);
    if (before && before !== kind) throw new Error(`integration type ${type} was provided twice`);
    provided.set(type, kind);
  }
}

/** Start-up: every provided type has its kind, or the process refuses to start, naming what is missing. */
export function requireProvidedKinds(): void {
  const missing = PROVIDED_TYPES.filter((type) => !provided.has(type));
  if (missing.length > 0) throw notProvided(missing.join(', '));
}

/** The kind of a type the panel accepted (every type has one, once the process started). */
export function kindOf(type: IntegrationType | string): IntegrationKind {
  const kind = byType.get(type);
  if (kind) return kind;
  if ((PROVIDED_TYPES as readonly string[]).includes(type)) return providedKind(type);
  throw new Error(`unknown integration type ${type}`);
}

function providedKind(type: string): ConnectionKind {
  const kind = provided.get(type);
  if (!kind) throw notProvided(type);
  return kind;
}

/** The connection of a type whose integrations connect an account elsewhere; undefined for the others. */
export const connectionOf = (type: string): AccountConnection | undefined =>
  (PROVIDED_TYPES as readonly string[]).includes(type) ? providedKind(type).connection : undefined;

/** The gateway's connection (the alert and the OAuth redirect of the `integrations` resource). */
export const gatewayConnection = (): AccountConnection => providedKind('gateway').connection;

/** Every kind, in the order the request schemas list them (once the process started). */
export const integrationKinds = (): IntegrationKind[] =>
  LISTED.map((kind) => (typeof kind === 'string' ? providedKind(kind) : kind));
