/**
 * `x-references`: marks a field whose valid values are existing data (an offer code, a link id), not
 * a shape. It names the GET operation that lists valid values and the property holding each one, so
 * a client (and the schema-driven test suite) can find real values; `parameters` fills that
 * operation's path parameters (`{name}` is this request's own). Without `operationId` it only says
 * "any value may name nothing" (an OAuth state, a value that depends on stored state).
 */
export interface Reference {
  operationId?: string;
  property?: string;
  where?: Record<string, unknown>;
  parameters?: Record<string, string>;
}

export const references = (reference: Reference): { 'x-references': Reference } => ({
  'x-references': reference,
});
