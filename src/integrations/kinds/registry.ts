/**
 * Every integration kind, one line each: the integration core and the delivery engine find a type's
 * kind here and nowhere else.
 */
import { adPixelKind } from './ad-pixel/index.js';
import { gatewayKind } from './gateway.js';
import { invoiceKind } from './invoice/index.js';
import type { IntegrationKind } from './kind.js';
import { membersAreaKind } from './members-area.js';
import { INTEGRATION_TYPES, type IntegrationType } from './types.js';
import { webhookKind } from './webhook/index.js';

export const INTEGRATION_KINDS: readonly IntegrationKind[] = [
  webhookKind,
  gatewayKind,
  adPixelKind,
  invoiceKind,
  membersAreaKind,
];

const byType = new Map<string, IntegrationKind>(
  INTEGRATION_KINDS.flatMap((kind) => kind.types.map((type) => [type, kind] as const)),
);
// A type with no kind, or with two, is a mistake of this file: the process refuses to start.
for (const type of INTEGRATION_TYPES)
  if (!byType.has(type)) throw new Error(`integration type ${type} has no kind in kinds/registry.ts`);
if (byType.size !== INTEGRATION_KINDS.reduce((n, kind) => n + kind.types.length, 0))
  throw new Error('an integration type has two kinds in kinds/registry.ts');

/** The kind of a type the panel accepted (every type has one). */
export function kindOf(type: IntegrationType | string): IntegrationKind {
  const kind = byType.get(type);
  if (!kind) throw new Error(`unknown integration type ${type}`);
  return kind;
}
