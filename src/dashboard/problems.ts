/**
 * The services' errors in the page's language. The services speak English (the API's envelope, logs
 * and tests read it); a dashboard page says the same thing in its own words, so a pt-BR page never
 * shows an English sentence or a field's code name.
 */
import {
  AppError,
  ConflictError,
  NotFoundError,
  PermissionError,
  ValidationError,
} from '../shared/errors.js';
import type { DashboardLocale } from './locale.js';
import { PROBLEM_FIELDS, type ProblemField, type ProblemKey } from './messages.js';

/** A field as the services name it (`config.url`, `events.3`) → the form field it belongs to. */
const FIELD_ALIASES: Record<string, ProblemField> = {
  'config.url': 'url',
  'config.headers': 'headers',
  config: 'url',
  product_id: 'products',
  product_ids: 'products',
};

function formFieldOf(name: string): ProblemField | undefined {
  const alias = FIELD_ALIASES[name];
  if (alias) return alias;
  const head = name.split('.')[0] ?? name;
  return PROBLEM_FIELDS.find((f) => f === head);
}

/**
 * Refusals recognised by the service's own sentence; each pattern matches one message of
 * src/shared, src/webhooks, src/integrations, src/keys or this folder.
 */
const REFUSALS: Array<{ kind: typeof AppError; pattern: RegExp; key: ProblemKey }> = [
  { kind: PermissionError, pattern: /^Not signed in/, key: 'not_signed_in' },
  { kind: PermissionError, pattern: /^(Cross-site|Form posts from another origin)/, key: 'cross_site' },
  { kind: PermissionError, pattern: /^The form is stale/, key: 'stale_form' },
  { kind: PermissionError, pattern: /read-only/i, key: 'read_only' },
  { kind: PermissionError, pattern: /company owner/, key: 'owner_only' },
  { kind: ConflictError, pattern: /at most \d+ active keys/, key: 'too_many_keys' },
  { kind: ConflictError, pattern: /already pending/, key: 'already_pending' },
  { kind: ConflictError, pattern: /no signing secret/, key: 'no_secret' },
  { kind: ConflictError, pattern: /does not receive webhooks/, key: 'no_webhooks' },
  { kind: ConflictError, pattern: /re-?enable/i, key: 'reenable_first' },
  { kind: ConflictError, pattern: /active gateway/, key: 'one_gateway' },
];

/** Each field of a validation error with its sentence (one per form field, in the form's order). */
export function fieldProblems(page: DashboardLocale, err: ValidationError): Map<ProblemField | '', string> {
  const found = new Map<ProblemField | '', string>();
  const names = Object.keys(err.fields ?? {});
  for (const name of names.length > 0 ? names : [err.message.split(':')[0] ?? '']) {
    const field = formFieldOf(name);
    if (field) found.set(field, page.t.problems.fields[field]);
    else found.set('', page.t.problems.refusals.unexpected);
  }
  return found;
}

/** The sentences a page shows for an error (never the service's English on a pt-BR page). */
export function problemSentences(page: DashboardLocale, err: AppError): string[] {
  const { refusals } = page.t.problems;
  if (err instanceof ValidationError) return [...fieldProblems(page, err).values()];
  if (err instanceof NotFoundError) return [refusals.not_found];
  const known = REFUSALS.find((r) => err instanceof r.kind && r.pattern.test(err.message));
  if (known) return [refusals[known.key]];
  if (err instanceof ConflictError) return [refusals.conflict];
  // What no rule above names is said as the service said it in English, and generically otherwise.
  return [page.lang === 'en' ? err.message : refusals.invalid];
}
