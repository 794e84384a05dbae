import { expect, it } from 'vitest';
import { BASE, describeEachEngine, type Caller, type TestApp } from '../helpers/test-app.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const SANDBOX_PATHS = [
  ['/sandbox/cards/Card:x/simulate/authorization_expiry', { cardTransactionId: 'CardTransaction:x' }],
  ['/sandbox/cards/Card:x/simulate/return_reversal', { cardTransactionId: 'CardTransaction:x' }],
  ['/sandbox/cards/Card:x/simulate/authorization', { amount: 100, currency: { code: 'USD' }, merchant: { descriptor: 'x' } }],
  ['/sandbox/webhooks/test', undefined],
  ['/sandbox/internal-accounts/InternalAccount:x/fund', { amount: 100 }],
] as const;

/** Every method on every sandbox path answers exactly as the same method on an unknown path. */
async function expectSandboxPathsUnknown(caller: Caller): Promise<void> {
  for (const [path, body] of SANDBOX_PATHS) {
    for (const method of METHODS) {
      const withBody = method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? undefined : body;
      const res = await caller.req(method, path, withBody);
      const unknown = await caller.req(method, `${path}-nope`, withBody);
      const label = `${method} ${path}`;
      expect(res.statusCode, label).toBe(404);
      expect(res.headers.allow, label).toBeUndefined();
      if (method === 'HEAD') continue;
      expect(res.json(), label).toEqual({ ...unknown.json(), message: unknown.json().message.replace(`${path}-nope`, path) });
    }
  }
}

async function documentedPaths(t: TestApp): Promise<string[]> {
  const doc = (await t.app.inject({ method: 'GET', url: `${BASE}/openapi.json` })).json() as { paths: Record<string, unknown> };
  return Object.keys(doc.paths);
}

describeEachEngine(
  'a production deployment',
  (t) => {
    it('does not register the sandbox operations: every method on their paths answers exactly like an unknown path, whatever the token', async () => {
      await expectSandboxPathsUnknown(t.caller);
      await expectSandboxPathsUnknown(await t.newCaller('production'));
      expect(t.app.apiOperations.filter((o) => o.url.includes('/sandbox/'))).toEqual([]);
    });

    it('does not document them', async () => {
      const paths = await documentedPaths(t);
      expect(paths).toContain('/tokens');
      expect(paths.filter((p) => p.includes('sandbox'))).toEqual([]);
    });

    it('answers a card reveal 501 whatever the token, and serves no reveal page', async () => {
      const res = await t.caller.req('POST', '/cards/Card:019542f5-b3e7-7d02-8000-00000000dead/reveal');
      expect(res.statusCode, res.body).toBe(501);
      expect(res.json().code).toBe('NOT_IMPLEMENTED');
      const page = await t.app.inject({ method: 'GET', url: '/sandbox-pages/cards/reveal/x.y' });
      const unknown = await t.app.inject({ method: 'GET', url: '/sandbox-pages/cards/reveal-nope/x.y' });
      expect([page.statusCode, page.json().code]).toEqual([unknown.statusCode, unknown.json().code]);
      expect(page.statusCode).toBeGreaterThanOrEqual(400);
    });

    it('still serves the other operations', async () => {
      expect((await t.caller.req('GET', '/tokens')).statusCode).toBe(200);
    });
  },
  { SERVICE_ENV: 'production' },
);

describeEachEngine('a production token on a sandbox server', (t) => {
  it('meets every method on the sandbox paths exactly like an unknown path; a sandbox token meets 405 with Allow', async () => {
    await expectSandboxPathsUnknown(await t.newCaller('production'));
    const res = await t.caller.req('GET', '/sandbox/webhooks/test');
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect((await documentedPaths(t)).filter((p) => p.includes('sandbox')).length).toBeGreaterThan(0);
  });
});
