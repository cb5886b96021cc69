/** The small part of OpenAPI 3.1 this service writes; JSON Schema objects stay open-ended. */
export type JsonSchema = { [key: string]: unknown };

export interface OperationObject {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: JsonSchema[];
  requestBody?: JsonSchema;
  responses: Record<string, JsonSchema>;
}

export type PathItem = Partial<Record<'get' | 'post' | 'patch' | 'put' | 'delete', OperationObject>>;

/** What one component contributes to a document. */
export interface OpenApiFragment {
  paths: Record<string, PathItem>;
  schemas?: Record<string, JsonSchema>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  paths: Record<string, PathItem>;
  /** Requests the service sends (webhook events), by name. */
  webhooks?: Record<string, PathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, JsonSchema>;
    securitySchemes: Record<string, JsonSchema>;
  };
  security: Array<Record<string, string[]>>;
}
