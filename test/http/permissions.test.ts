import { expect, it } from 'vitest';
import { requirePermissionDeclared } from '../../src/http/auth.js';
import { PERMISSIONS, permissionRank, type Permission } from '../../src/domain/platform/tokens.js';
import { BASE, basicAuth, describeEachEngine } from '../helpers/test-app.js';

/** The rule, written once: reads need VIEW; tokens and configuration changes MANAGE; every other change TRANSACT. */
function expectedPermission(method: string, url: string): Permission {
  if (method === 'GET') return 'VIEW';
  const path = url.slice(BASE.length);
  if (path.startsWith('/tokens') || path.startsWith('/config')) return 'MANAGE';
  return 'TRANSACT';
}

it('a route that declares no permission refuses to register', () => {
  expect(() => requirePermissionDeclared({ method: 'POST', url: '/x', config: {} }, {})).toThrow(/declares no permission/);
  expect(() => requirePermissionDeclared({ method: 'POST', url: '/x', config: { permission: 'ADMIN' } }, {})).toThrow(/declares no permission/);
  expect(requirePermissionDeclared({ method: 'GET', url: '/x', config: { public: true } }, {})).toBeUndefined();
});

describeEachEngine('permissions', (t) => {
  it('every registered operation declares the permission the rule gives it', () => {
    const ops = t.app.apiOperations.filter((o) => o.method !== 'HEAD');
    expect(ops.length).toBeGreaterThanOrEqual(20);
    for (const op of ops) expect({ ...op, permission: op.permission }).toEqual({ ...op, permission: expectedPermission(op.method, op.url) });
  });

  it('every operation x every permission: 403 FORBIDDEN below what it needs, never at or above; the 403 is documented exactly where it can answer', async () => {
    const auths = {} as Record<Permission, string>;
    for (const p of PERMISSIONS) {
      const res = await t.caller.req('POST', '/tokens', { name: `only ${p}`, permissions: [p] });
      expect(res.statusCode).toBe(201);
      const token = res.json() as { clientId: string; clientSecret: string };
      auths[p] = basicAuth(token.clientId, token.clientSecret);
    }
    const doc = (await t.app.inject({ method: 'GET', url: `${BASE}/openapi.json` })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const ops = t.app.apiOperations.filter((o) => o.method !== 'HEAD');
    const seen: string[] = [];
    for (const op of ops) {
      const url = op.url.replace(/:id\b/g, 'Thing:0194f5b3-0000-7000-8000-000000000000');
      const documented = doc.paths[op.url.slice(BASE.length).replace(/:(\w+)/g, '{$1}')]?.[op.method.toLowerCase()];
      expect(documented, `${op.method} ${op.url} in the OpenAPI document`).toBeDefined();
      expect('403' in documented!.responses, `${op.method} ${op.url} documents 403`).toBe(op.permission !== 'VIEW');
      for (const p of PERMISSIONS) {
        const res = await t.app.inject({
          method: op.method as 'GET',
          url,
          headers: { authorization: auths[p], ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { 'content-type': 'application/json' }) },
          ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { payload: '{}' }),
        });
        const denied = permissionRank(p) < permissionRank(op.permission);
        if (denied) {
          expect(res.statusCode, `${p} ${op.method} ${op.url}`).toBe(403);
          expect(res.json()).toEqual({
            status: 403,
            code: 'FORBIDDEN',
            message: `This operation needs a token with the ${op.permission} permission`,
            details: { requiredPermission: op.permission },
          });
        } else {
          expect(res.statusCode, `${p} ${op.method} ${op.url}: ${res.body}`).not.toBe(403);
          expect(res.statusCode).toBeLessThan(500);
        }
        seen.push(`${p} ${op.method} ${res.statusCode}`);
      }
    }
    // The table covered each permission being refused somewhere and accepted somewhere.
    expect(seen.some((s) => s.startsWith('VIEW') && s.endsWith('403'))).toBe(true);
    expect(seen.some((s) => s.startsWith('TRANSACT') && s.endsWith('403'))).toBe(true);
    expect(seen.some((s) => s.startsWith('MANAGE') && s.endsWith('403'))).toBe(false);
  });

  it('a VIEW token cannot change the configuration nor create a MANAGE token; its reads work', async () => {
    const res = await t.caller.req('POST', '/tokens', { name: 'viewer', permissions: ['VIEW'] });
    const viewer = res.json() as { clientId: string; clientSecret: string };
    const auth = basicAuth(viewer.clientId, viewer.clientSecret);
    const as = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
      t.app.inject({ method, url: `${BASE}${url}`, headers: { authorization: auth }, ...(body === undefined ? {} : { payload: body as object }) });
    expect((await as('PATCH', '/config', { webhookEndpoint: 'https://example.com/hook' })).statusCode).toBe(403);
    expect((await as('POST', '/tokens', { name: 'escalate', permissions: ['MANAGE'] })).statusCode).toBe(403);
    expect((await as('GET', '/tokens')).statusCode).toBe(200);
    expect((await as('GET', '/config')).json()).not.toMatchObject({ webhookEndpoint: 'https://example.com/hook' });
  });
});
