import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import { sharedApp } from '../helpers/app.js';

describe('OpenAPI documents', () => {
  it('serves /v1/openapi.json without credentials: a valid OpenAPI 3.1 document, version 1.0.0', async () => {
    const app = await sharedApp();
    const res = await app.http.get('/v1/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ openapi: '3.1.0' });
    expect(res.body).to.have.nested.property('info.version', '1.0.0');
    const result = await new Validator().validate(res.body as Record<string, unknown>);
    expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it('describes every payments path with its error responses', async () => {
    const app = await sharedApp();
    const doc = (await app.http.get('/v1/openapi.json')).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    expect(doc.paths).to.include.keys('/v1/offers', '/v1/plans');
    for (const [path, item] of Object.entries(doc.paths)) {
      if (path === '/v1/openapi.json') continue;
      for (const [method, op] of Object.entries(item)) {
        expect(op.responses, `${method} ${path}`).to.include.keys('401', '403', '500');
      }
    }
  });

  it('serves the panel document at {panel_api_url}/openapi.json, also valid OpenAPI 3.1', async () => {
    const app = await sharedApp();
    const res = await app.http.get('/panel/v1/openapi.json');
    expect(res.status).to.equal(200);
    const result = await new Validator().validate(res.body as Record<string, unknown>);
    expect(result.valid, JSON.stringify(result.errors)).to.equal(true);
  });
});
