import type { JsonSchema } from './types.js';

const COMPOSITES = ['allOf', 'anyOf', 'oneOf'] as const;
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isScalar = (value: unknown): boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

function allowsScalar(node: JsonSchema): boolean {
  const { type } = node;
  if (typeof type === 'string' && SCALAR_TYPES.has(type)) return true;
  if (Array.isArray(type) && type.some((t) => typeof t === 'string' && SCALAR_TYPES.has(t))) return true;
  if (isScalar(node.const)) return true;
  return Array.isArray(node.enum) && node.enum.some(isScalar);
}

/**
 * Whether a body that `root` describes can hold a string, number or boolean at `segments` (a dotted
 * path split on its dots): `$ref`s resolved in `components`, every branch of `allOf`/`anyOf`/`oneOf`
 * tried, a key no `properties` names followed into `additionalProperties` (a map such as metadata).
 */
export function scalarAt(
  components: Record<string, JsonSchema>,
  root: JsonSchema,
  segments: string[],
): boolean {
  const seen = new Set<JsonSchema>();
  const walk = (node: JsonSchema, at: number): boolean => {
    const ref = node.$ref;
    if (typeof ref === 'string') {
      const target = components[ref.replace('#/components/schemas/', '')];
      return target !== undefined && walk(target, at);
    }
    if (seen.has(node) && at === segments.length) return false;
    seen.add(node);
    for (const key of COMPOSITES) {
      const branches = node[key];
      if (Array.isArray(branches) && branches.some((b) => isSchema(b) && walk(b, at))) return true;
    }
    if (at === segments.length) return allowsScalar(node);
    const head = segments[at] ?? '';
    const properties = node.properties;
    if (isSchema(properties) && Object.hasOwn(properties, head)) {
      const child = properties[head];
      return isSchema(child) && walk(child, at + 1);
    }
    const extra = node.additionalProperties;
    return isSchema(extra) && walk(extra, at + 1);
  };
  return walk(root, 0);
}
