import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenApiDocument } from '../../src/shared/openapi/types.js';
import { sharedApp } from './app.js';
import { documentAjv, escapePointer } from './openapi-validator.js';

/**
 * Checks webhook bodies against the `webhooks` of the payments document as the service serves it, as
 * `HttpClient` checks API responses against `paths`: a payload that drifts from its schema fails.
 */
export class WebhookBodyValidator {
  private readonly ajv;
  private readonly byKind = new Map<string, ValidateFunction>();

  constructor(private readonly doc: OpenApiDocument) {
    this.ajv = documentAjv(doc);
  }

  /** Why `raw` is not a body the document promises for its kind; undefined when it is one. */
  problem(raw: string): string | undefined {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return `not JSON: ${raw.slice(0, 200)}`;
    }
    const kind = typeof body === 'object' && body !== null && 'type' in body ? body.type : undefined;
    if (typeof kind !== 'string' || !this.doc.webhooks?.[kind])
      return `kind ${JSON.stringify(kind)} has no entry under webhooks`;
    let validate = this.byKind.get(kind);
    if (!validate) {
      validate = this.ajv.compile({
        $ref: `openapi.json#/webhooks/${escapePointer(kind)}/post/requestBody/content/application~1json/schema`,
      });
      this.byKind.set(kind, validate);
    }
    if (validate(body)) return undefined;
    return `${kind} body does not match its webhooks schema: ${this.ajv.errorsText(validate.errors)}\n${raw.slice(0, 800)}`;
  }
}

let served: Promise<WebhookBodyValidator> | undefined;

/** The validator of the served payments document (fetched once per run). */
export function servedWebhookValidator(): Promise<WebhookBodyValidator> {
  served ??= sharedApp().then(async (app) => {
    const res = await fetch(`${app.url}/v1/openapi.json`);
    return new WebhookBodyValidator((await res.json()) as OpenApiDocument);
  });
  return served;
}

const unreported: string[] = [];

/** Records a webhook body that broke its schema; the suite's afterEach hook fails the test with it. */
export function reportWebhookViolation(problem: string): void {
  unreported.push(problem);
}

/** Every violation recorded since the last call (root afterEach hook). */
export function takeWebhookViolations(): string[] {
  return unreported.splice(0);
}
