import { expect } from 'chai';
import type { HttpResponse } from '../helpers/http.js';

export const P = '/panel/v1';

export interface IntegrationProductBody {
  id: number;
  product: number;
  product_code: string;
  product_name: string;
  is_active: boolean;
  created_at: string;
}

export interface IntegrationBody {
  id: number;
  type: string;
  is_active: boolean;
  config: Record<string, string>;
  events: string[];
  products: IntegrationProductBody[];
  send_to_all_products: boolean;
  product_ids: number[];
  failure_count: number;
  last_failure_at: string | null;
  disabled_reason: string;
  rate_limit_per_second: number | null;
  created_at: string;
  updated_at: string;
}

export interface ErrorBody {
  error: { type: string; message: string; fields?: Record<string, string[]> };
}

export function expectError(res: HttpResponse<unknown>, status: number, type: string, field?: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  const body = res.body as ErrorBody;
  expect(body.error.type).to.equal(type);
  expect(body.error.message).to.be.a('string').and.not.empty;
  if (field) expect(body.error.fields ?? {}, JSON.stringify(body)).to.have.property(field);
}

export const webhook = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'webhook',
  config: { url: 'https://hooks.example.com/receiver' },
  events: ['order.paid'],
  ...overrides,
});
