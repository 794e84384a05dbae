import { Validator } from '@seriousme/openapi-schema-validator';
import { expect, it } from 'vitest';
import { BASE, describeEachEngine } from '../helpers/test-app.js';

describeEachEngine('OpenAPI document', (t) => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const res = await t.app.inject({ url: `${BASE}/openapi.json` });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('declares the security schemes, the versioned server and the error responses of every operation', async () => {
    const doc = (await t.app.inject({ url: `${BASE}/openapi.json` })).json();
    expect(doc.servers[0].url).toBe(BASE);
    expect(doc.components.securitySchemes.BasicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(doc.components.securitySchemes.AgentAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    let operations = 0;
    for (const [path, item] of Object.entries<Record<string, { responses: Record<string, unknown> }>>(doc.paths)) {
      expect(path.startsWith(BASE)).toBe(false);
      for (const [method, op] of Object.entries(item)) {
        operations++;
        expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['401', '500']));
      }
    }
    expect(operations).toBeGreaterThanOrEqual(4);
    const tokens400 = doc.paths['/tokens'].post.responses['400'].content['application/json'].schema;
    expect(tokens400.properties.code.enum).toEqual(expect.arrayContaining(['INVALID_INPUT', 'INVALID_REQUEST_FORMAT', 'CARDHOLDER_KYC_NOT_APPROVED']));
    const tokens401 = doc.paths['/tokens'].post.responses['401'].content['application/json'].schema;
    expect(tokens401.properties.code.enum).toEqual(expect.arrayContaining(['UNAUTHORIZED', 'REQUEST_ID_MISSING']));
  });
});
