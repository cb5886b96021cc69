/**
 * The integration page's filter and headers as a person types them: one condition a line
 * (`data.order.payment_method = pix, boleto`) and one header a line (`Authorization: Bearer …`).
 * Parsed into the panel API's shapes, which its schema and service then check as for any PATCH.
 */
import { maskedValues as maskedHeaders } from '../../integrations/kinds/sealed.js';
import type { FilterValue, WebhookFilter } from '../../integrations/filters.js';
import { ValidationError } from '../../shared/errors.js';

const linesOf = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');

/** `true`/`false` and numbers as JSON reads them; a value in double quotes stays text. */
function valueOf(text: string): FilterValue {
  if (/^".*"$/.test(text)) return text.slice(1, -1);
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(text)) return Number(text);
  return text;
}

const textOf = (value: FilterValue): string =>
  typeof value === 'string' && (/^(true|false|-?[0-9.]+)$/.test(value) || value.includes(','))
    ? JSON.stringify(value)
    : String(value);

export function filterText(filter: WebhookFilter | null): string {
  return Object.entries(filter ?? {})
    .map(
      ([path, wanted]) => `${path} = ${(Array.isArray(wanted) ? wanted : [wanted]).map(textOf).join(', ')}`,
    )
    .join('\n');
}

/** The filter a textarea holds; empty is none (null). */
export function parseFilterText(text: string): WebhookFilter | null {
  const filter: WebhookFilter = {};
  for (const line of linesOf(text)) {
    const at = line.indexOf('=');
    if (at <= 0) throw ValidationError.field('filter', `line without "path = value": ${line.slice(0, 60)}`);
    const values = line
      .slice(at + 1)
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '')
      .map(valueOf);
    const [first] = values;
    if (first === undefined) throw ValidationError.field('filter', `no value: ${line.slice(0, 60)}`);
    filter[line.slice(0, at).trim()] = values.length === 1 ? first : values;
  }
  return Object.keys(filter).length > 0 ? filter : null;
}

/** The stored headers as the form shows them: names, values masked (the mask keeps them). */
export const headersText = (stored: Record<string, string> | null): string =>
  Object.entries(maskedHeaders(stored))
    .map(([name, masked]) => `${name}: ${masked}`)
    .join('\n');

/** The headers a textarea holds (`Name: value`); empty is none. */
export function parseHeadersText(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of linesOf(text)) {
    const at = line.indexOf(':');
    if (at <= 0) throw ValidationError.field('config.headers', 'a line without "Name: value"');
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return headers;
}
