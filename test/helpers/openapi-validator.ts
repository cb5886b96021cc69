import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenApiDocument } from '../../src/shared/openapi/types.js';

// ajv-formats is CommonJS with a default export; under NodeNext its default is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** An ajv instance that knows the document as `openapi.json`, so schemas can point into it. */
export function documentAjv(doc: OpenApiDocument): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc as unknown as Record<string, unknown>, 'openapi.json');
  return ajv;
}

interface Operation {
  template: string;
  regex: RegExp;
  method: string;
}

/**
 * Checks responses against an OpenAPI document, so that the document cannot drift from the code:
 * an undocumented path, method or status code fails just like a body that breaks its schema.
 */
export class OpenApiResponseValidator {
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[] = [];
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(
    private readonly doc: OpenApiDocument,
    private readonly prefix: string,
  ) {
    this.ajv = documentAjv(doc);
    for (const [template, item] of Object.entries(doc.paths)) {
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      for (const method of Object.keys(item)) {
        this.operations.push({ template, method, regex: new RegExp(`^${pattern}$`) });
      }
    }
  }

  /** Throws with a readable message when the response is not what the document promises. */
  check(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
    const path = new URL(url, 'http://x').pathname.slice(this.prefix.length) || '/';
    const lower = method.toLowerCase();
    const op = this.operations.find((o) => o.method === lower && o.regex.test(path));
    if (!op) throw new Error(`OpenAPI: ${method} ${path} is not documented`);
    const operation = this.doc.paths[op.template]?.[lower as 'get'];
    const responses = operation?.responses ?? {};
    const code =
      String(status) in responses ? String(status) : 'default' in responses ? 'default' : undefined;
    if (!code) throw new Error(`OpenAPI: ${method} ${op.template} does not document status ${status}`);
    let response = responses[code] as Record<string, unknown>;
    let pointer = `openapi.json#/paths/${escapePointer(op.template)}/${lower}/responses/${code}`;
    const target = response.$ref;
    if (typeof target === 'string') {
      const name = target.split('/').pop() ?? '';
      response = (this.doc.components.responses[name] ?? {}) as Record<string, unknown>;
      pointer = `openapi.json#/components/responses/${escapePointer(name)}`;
    }
    const content = response.content as Record<string, unknown> | undefined;
    if (!content) {
      if (body !== undefined && body !== '')
        throw new Error(`OpenAPI: ${method} ${op.template} ${status} documents no body`);
      return;
    }
    if (!contentType?.includes('application/json')) {
      throw new Error(
        `OpenAPI: ${method} ${op.template} ${status} should be JSON, got ${contentType ?? 'none'}`,
      );
    }
    const schemaPointer = `${pointer}/content/application~1json/schema`;
    let validate = this.cache.get(schemaPointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: schemaPointer });
      this.cache.set(schemaPointer, validate);
    }
    if (!validate(body)) {
      throw new Error(
        `OpenAPI: ${method} ${op.template} ${status} body does not match: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 800)}`,
      );
    }
  }
}
