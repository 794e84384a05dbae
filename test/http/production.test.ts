import { expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';

describeEachEngine(
  'a production deployment',
  (t) => {
    it('answers every sandbox path exactly like an unknown path, whatever the token', async () => {
      const paths = [
        ['POST', '/sandbox/cards/Card:x/simulate/authorization_expiry', { cardTransactionId: 'CardTransaction:x' }],
        ['POST', '/sandbox/cards/Card:x/simulate/return_reversal', { cardTransactionId: 'CardTransaction:x' }],
        ['POST', '/sandbox/cards/Card:x/simulate/authorization', { amount: 100, merchant: { descriptor: 'x' } }],
        ['POST', '/sandbox/webhooks/test', undefined],
      ] as const;
      for (const [method, path, body] of paths) {
        const res = await t.caller.req(method, path, body);
        const unknown = await t.caller.req(method, `${path}-nope`, body);
        expect(res.statusCode, path).toBe(404);
        expect(res.json()).toEqual({ ...unknown.json(), message: unknown.json().message.replace(`${path}-nope`, path) });
      }
    });

    it('still serves the other operations', async () => {
      expect((await t.caller.req('GET', '/tokens')).statusCode).toBe(200);
    });
  },
  { SERVICE_ENV: 'production' },
);
