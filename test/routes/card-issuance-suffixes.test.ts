import { beforeAll, describe, expect, it } from 'vitest';
import { last4FromSuffix } from '../../src/domain/cards/card-issuance.js';
import { CARD_PROVISIONING_JOB } from '../../src/domain/cards/card-lifecycle.js';
import { newId } from '../../src/domain/shared/ids.js';
import { insertAccountIfAbsent } from '../../src/store/accounts-repo.js';
import { insertCustomer } from '../../src/store/customers-repo.js';
import { injectCall, insertTestCustomer, issueCard, type ApiCall } from '../helpers/fixtures.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { connectedCaller } from '../helpers/webhook-receiver.js';

const DELAY_MS = 1_500;

describe('issuance suffix helpers', () => {
  it('derives last4 from the suffix: 4 then a digit per character (digits kept, others by code modulo 10)', () => {
    expect(last4FromSuffix('042')).toBe('4042');
    expect(last4FromSuffix('ppy')).toBe('4221');
    expect(last4FromSuffix('a-9')).toBe('4759');
  });

  it('never mints an id ending in a magic suffix, so suffix outcomes happen only on purpose', () => {
    const endings = new Set(Array.from({ length: 20_000 }, () => newId('Customer').slice(-3)));
    for (const magic of ['001', '002', '003', '005']) expect(endings.has(magic), magic).toBe(false);
  });
});

describeEachEngine(
  'issuance suffixes on platformCardId, else cardholderId',
  (t) => {
    const ctx = connectedCaller(t);
    let call: ApiCall;

    beforeAll(async () => {
      call = injectCall(ctx.caller);
    });

    const stateChanges = (cardId: string) =>
      ctx.receiver.verifiedUnique().filter((d) => d.payload?.type === 'CARD.STATE_CHANGE' && (d.payload.data as { id: string }).id === cardId).map((d) => d.payload!.data as Record<string, any>);
    const recordedStateChanges = async (cardId: string) =>
      (await t.services.store.db.selectFrom('webhook_events').select('body').where('platform_id', '=', ctx.caller.platformId).where('type', '=', 'CARD.STATE_CHANGE').orderBy('id').execute())
        .map((e) => JSON.parse(e.body).data)
        .filter((d: { id: string }) => d.id === cardId);
    const provisioningJobs = (cardId: string) => t.services.store.db.selectFrom('jobs').selectAll().where('kind', '=', CARD_PROVISIONING_JOB).where('queue_key', '=', cardId).execute();
    const issue = async (extra: Record<string, unknown>, holder?: string) => issueCard(call, holder ?? (await insertTestCustomer(t, ctx.caller, 'INDIVIDUAL', 'APPROVED')), extra);
    const getCard = async (id: string) => (await call('GET', `/cards/${id}`)).body;
    /** An approved customer whose id ends in `suffix`, with its USD account: ids the service mints never do. */
    const holderEndingIn = async (suffix: string) => {
      const id = `${newId('Customer').slice(0, -3)}${suffix}`;
      const now = Date.now();
      await t.services.store.transaction(async (uow) => {
        await insertCustomer(uow, { id, platform_id: ctx.caller.platformId, customer_type: 'INDIVIDUAL', platform_customer_id: `ext-${id.slice(-12)}`, kyc_status: 'APPROVED', data: '{}', owner_count: 0, uma_address: `$t${id.slice(-12)}@test.invalid`, is_deleted: 0, region: null, currency_list: '', created_at: now, updated_at: now });
        await insertAccountIfAbsent(uow, { id: newId('InternalAccount'), platform_id: ctx.caller.platformId, customer_id: id, type: 'INTERNAL_FIAT', status: 'ACTIVE', currency: 'USD', available_balance: 0, total_balance: 0, created_at: now, updated_at: now });
      });
      return id;
    };

    it('any other suffix: PROCESSING, then ACTIVE with a verified CARD.STATE_CHANGE; last4 is the same for every card with that suffix', async () => {
      const first = await issue({ platformCardId: 'emp-happy-042' });
      const second = await issue({ platformCardId: 'emp-other-042' });
      expect(first).toMatchObject({ state: 'PROCESSING', stateReason: null, last4: '4042' });
      expect(second.last4).toBe('4042');
      await ctx.receiver.waitFor(() => stateChanges(first.id).length === 1 && stateChanges(second.id).length === 1);
      const [activated] = stateChanges(first.id);
      expect(activated).toMatchObject({ state: 'ACTIVE', stateReason: null, last4: '4042' });
      expect(activated).toEqual(await getCard(first.id));
    });

    it('001: stays PROCESSING, with no provisioning job and no webhook, while a card issued after it is activated', async () => {
      const waiting = await issue({ platformCardId: 'emp-poll-001' });
      const later = await issue({ platformCardId: 'emp-later-777' });
      await ctx.receiver.waitFor(() => stateChanges(later.id).length === 1);
      expect(await provisioningJobs(waiting.id)).toEqual([]);
      expect(await getCard(waiting.id)).toEqual(waiting);
      expect(waiting).toMatchObject({ state: 'PROCESSING', last4: '4001' });
      expect(await recordedStateChanges(waiting.id)).toEqual([]);
    });

    it('002: provisioning rejected -> CLOSED with stateReason ISSUER_REJECTED, sent as a verified CARD.STATE_CHANGE', async () => {
      const card = await issue({ platformCardId: 'emp-reject-002' });
      expect(card).toMatchObject({ state: 'PROCESSING', stateReason: null });
      await ctx.receiver.waitFor(() => stateChanges(card.id).length === 1);
      const [rejected] = stateChanges(card.id);
      expect(rejected).toMatchObject({ id: card.id, state: 'CLOSED', stateReason: 'ISSUER_REJECTED' });
      expect(rejected).toEqual(await getCard(card.id));
      const reopen = await call('PATCH', `/cards/${card.id}`, { state: 'ACTIVE' });
      expect(reopen.status).toBe(409);
    });

    it('005: activation is due SANDBOX_DELAYED_ACTIVATION_MS after issuance, and the CARD.STATE_CHANGE comes no earlier', async () => {
      const card = await issue({ platformCardId: 'emp-slow-005' });
      const issuedAt = Date.parse(card.createdAt);
      const [job] = await provisioningJobs(card.id);
      // Due DELAY_MS after issuance on the platform's clock (an advance pulls it forward), and as long in real time.
      expect(Number(job!.platform_due_at)).toBe(issuedAt + DELAY_MS);
      expect(Number(job!.run_at)).toBeGreaterThanOrEqual(issuedAt + DELAY_MS);
      expect((await getCard(card.id)).state).toBe('PROCESSING');
      await ctx.receiver.waitFor(() => stateChanges(card.id).length === 1, DELAY_MS + 10_000);
      const [activated] = stateChanges(card.id);
      expect(activated).toMatchObject({ state: 'ACTIVE', last4: '4005' });
      expect(Date.parse(activated!.updatedAt)).toBeGreaterThanOrEqual(issuedAt + DELAY_MS);
    });

    it('without platformCardId the cardholderId decides; a given platformCardId decides over it', async () => {
      const rejectedHolder = await holderEndingIn('002');
      const byHolder = await issue({}, rejectedHolder);
      const overridden = await issue({ platformCardId: 'emp-mine-123' }, rejectedHolder);
      expect(byHolder.last4).toBe('4002');
      await ctx.receiver.waitFor(() => stateChanges(byHolder.id).length === 1 && stateChanges(overridden.id).length === 1);
      expect(stateChanges(byHolder.id)[0]).toMatchObject({ state: 'CLOSED', stateReason: 'ISSUER_REJECTED' });
      expect(stateChanges(overridden.id)[0]).toMatchObject({ state: 'ACTIVE', last4: '4123' });
      const waitingHolder = await holderEndingIn('001');
      const waiting = await issue({}, waitingHolder);
      expect(await provisioningJobs(waiting.id)).toEqual([]);
    });

    it('production has no issuer: a 002 card stays PROCESSING with no job', async () => {
      const production = await t.newCaller('production', ctx.caller);
      const holder = await insertTestCustomer(t, production, 'INDIVIDUAL', 'APPROVED');
      const card = await issueCard(injectCall(production), holder, { platformCardId: 'emp-prod-002' });
      expect(card).toMatchObject({ state: 'PROCESSING', stateReason: null });
      expect(await provisioningJobs(card.id)).toEqual([]);
    });
  },
  { SANDBOX_DELAYED_ACTIVATION_MS: String(DELAY_MS) },
);
