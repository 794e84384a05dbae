import { expect, it } from 'vitest';
import { GRID_OPERATIONS, type GridOperation } from '../../src/http/grid-operations.js';
import { BASE, describeEachEngine, type TestApp } from '../helpers/test-app.js';

const SAMPLE_ID = 'Thing:0194f5b3-0000-7000-8000-000000000000';

/** A request path for the operation: every parameter filled in. */
function urlOf(op: GridOperation): string {
  return op.path.replace(/\{\w+\}/g, SAMPLE_ID);
}

/** `GET /customers/{}`: parameter names differ between the document and the routes (`{customerId}`, `{id}`). */
function shape(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/\{\w+\}/g, '{}')}`;
}

async function documented(t: TestApp): Promise<Set<string>> {
  const doc = (await t.app.inject({ method: 'GET', url: `${BASE}/openapi.json` })).json() as { paths: Record<string, Record<string, unknown>> };
  return new Set(Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => shape(method, path))));
}

function notImplementedBody(op: GridOperation) {
  return { status: 501, code: 'NOT_IMPLEMENTED', message: expect.stringContaining(`${op.operationId} (${op.method} ${op.path})`) };
}

function byOperationId(id: string): GridOperation {
  const op = GRID_OPERATIONS.find((o) => o.operationId === id);
  if (!op) throw new Error(`no operation ${id}`);
  return op;
}

it('holds the 153 operations of the document, each method and path once', () => {
  expect(GRID_OPERATIONS).toHaveLength(153);
  expect(new Set(GRID_OPERATIONS.map((op) => shape(op.method, op.path))).size).toBe(153);
  expect(new Set(GRID_OPERATIONS.map((op) => op.operationId)).size).toBe(153);
});

// Both engines: a 501 reads no data, but the credentials that reach it are checked against storage.
describeEachEngine('operations of the Grid document not built yet', (t) => {
  it('every operation is either in the served OpenAPI document and answers, or answers 501 NOT_IMPLEMENTED naming it', async () => {
    const served = await documented(t);
    let implemented = 0;
    for (const op of GRID_OPERATIONS) {
      const label = `${op.operationId} ${op.method} ${op.path}`;
      const res = await t.caller.req(op.method, urlOf(op), op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
      if (served.has(shape(op.method, op.path))) {
        implemented++;
        expect(res.statusCode, label).not.toBe(501);
      } else {
        expect(res.statusCode, label).toBe(501);
        expect(res.json(), label).toEqual(notImplementedBody(op));
      }
    }
    // The service builds some of the document, not all of it, and not none of it.
    expect(implemented).toBeGreaterThanOrEqual(20);
    expect(implemented).toBeLessThan(GRID_OPERATIONS.length);
  });

  it('POST /customers/external-accounts/{id}/trust is a 501 beside the built operations of that account; they still answer', async () => {
    const unknown = 'ExternalAccount:0194f5b3-0000-7000-8000-000000000000';
    const res = await t.caller.req('POST', `/customers/external-accounts/${unknown}/trust`, {});
    expect(res.statusCode).toBe(501);
    expect(res.json()).toEqual(notImplementedBody(byOperationId('startBeneficiaryTrust')));
    const challenge = await t.caller.req('POST', `/customers/external-accounts/${unknown}/challenge`, { method: 'LIVENESS' });
    expect(challenge.statusCode).toBe(404);
    expect(challenge.json().code).toBe('REFERENCE_NOT_FOUND');
  });

  it('answers a BasicAuth operation 401 without credentials, and the 501 before reading any body (an upload of any type)', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: `${BASE}/verifications` });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('UNAUTHORIZED');
    const upload = await t.app.inject({
      method: 'POST',
      url: `${BASE}/stablecoins`,
      headers: { authorization: t.caller.auth, 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nnot a png\r\n--x--\r\n',
    });
    expect(upload.statusCode).toBe(501);
    expect(upload.json()).toEqual(notImplementedBody(byOperationId('registerStablecoin')));
  });

  it('answers an operation the document gives only an agent bearer token 501 to that token: this service issues none to verify', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/agents/me`, headers: { authorization: 'Bearer agent-token' } });
    expect(res.statusCode).toBe(501);
    expect(res.json()).toEqual(notImplementedBody(byOperationId('getAgentMe')));
  });

  it('answers an unbuilt sandbox operation to a production token as an unknown path', async () => {
    const production = await t.newCaller('production');
    const res = await production.req('POST', '/sandbox/uma/receive', {});
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ status: 404, code: 'REFERENCE_NOT_FOUND', message: `No operation POST ${BASE}/sandbox/uma/receive` });
  });
});

describeEachEngine(
  'operations of the Grid document not built yet, on a production server',
  (t) => {
    it('answers an unbuilt sandbox operation 404 as every sandbox path, and the others 501', async () => {
      const sandbox = await t.caller.req('POST', '/sandbox/uma/receive', {});
      expect(sandbox.statusCode).toBe(404);
      expect(sandbox.json().code).toBe('REFERENCE_NOT_FOUND');
      const other = await t.caller.req('GET', '/stablecoins');
      expect(other.statusCode).toBe(501);
      expect(other.json()).toEqual(notImplementedBody(byOperationId('listStablecoins')));
    });
  },
  { SERVICE_ENV: 'production' },
);
