import { beforeAll, expect, it } from 'vitest';
import { eip55, usdAccount, walletAccount } from '../helpers/external-accounts.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { connectedCaller } from '../helpers/webhook-receiver.js';

/** An hour: in real time the review never lands during the test, so only the platform's clock can land it. */
const DELAY_MS = 3_600_000;

describeEachEngine(
  'the sandbox external account review (104 name verification, LIVENESS) due on the platform clock',
  (t) => {
    const ctx = connectedCaller(t);
    let customerId: string;

    beforeAll(async () => {
      customerId = (await ctx.caller.req('POST', '/customers', { customerType: 'INDIVIDUAL' })).json().id;
    });

    const create = async (body: Record<string, unknown>) => {
      const res = await ctx.caller.req('POST', '/customers/external-accounts', { customerId, ...body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    /** Advances and answers the earliest the clock can have read once the advance took effect. */
    const advance = async (seconds: number) => {
      const before = Date.now();
      const res = await ctx.caller.req('POST', '/sandbox/clock/advance', { seconds });
      expect(res.statusCode, res.body).toBe(200);
      return before + res.json<{ advancedBySeconds: number }>().advancedBySeconds * 1000;
    };
    const read = async (id: string) => (await ctx.caller.req('GET', `/customers/external-accounts/${id}`)).json();
    const stampedAt = async (id: string) => Number((await t.services.store.db.selectFrom('external_accounts').select('updated_at').where('id', '=', id).executeTakeFirstOrThrow()).updated_at);
    const statusEvents = (id: string) => ctx.receiver.verifiedUnique().filter((d) => d.payload?.type === 'EXTERNAL_ACCOUNT.STATUS_UPDATED' && (d.payload.data as { id: string }).id === id);

    it('lands a 104 name verification and a LIVENESS challenge once an advance passes the delay, before the advance answers, stamped with the clock', async () => {
      const pending = await create(usdAccount('8800104'));
      expect(pending).toMatchObject({ status: 'PENDING', beneficiaryVerificationStatus: 'PENDING' });
      const wallet = await create(walletAccount('POLYGON_WALLET', eip55('fb6916095ca1df60bb79ce92ce3ea74c37c5d359')));
      const challenge = await ctx.caller.req('POST', `/customers/external-accounts/${wallet.id}/challenge`, { method: 'LIVENESS' });
      expect(challenge.statusCode, challenge.body).toBe(201);

      await advance(DELAY_MS / 1000 / 2);
      expect((await read(pending.id)).status).toBe('PENDING');
      expect((await read(wallet.id)).status).toBe('PENDING_OWNERSHIP_VERIFICATION');

      const movedTo = await advance(DELAY_MS / 1000 / 2 + 1);
      const landed = await read(pending.id);
      expect(landed).toMatchObject({ status: 'ACTIVE', beneficiaryVerificationStatus: 'MATCHED' });
      expect(await stampedAt(pending.id)).toBeGreaterThanOrEqual(movedTo);
      const verified = await read(wallet.id);
      expect(verified.status).toBe('ACTIVE');
      expect(await stampedAt(wallet.id)).toBeGreaterThanOrEqual(movedTo);

      await ctx.receiver.waitFor(() => statusEvents(pending.id).length === 1 && statusEvents(wallet.id).length === 1);
      for (const id of [pending.id, wallet.id]) {
        const [event] = statusEvents(id);
        expect(event!.verified).toBe(true);
        expect(Date.parse(event!.payload!.timestamp as string)).toBeGreaterThanOrEqual(movedTo);
      }
    });
  },
  // WORKER_ENABLED: the advance then waits for the jobs it made due to land before answering.
  { SANDBOX_EXTERNAL_ACCOUNT_REVIEW_DELAY_MS: String(DELAY_MS), WORKER_ENABLED: '1' },
);
