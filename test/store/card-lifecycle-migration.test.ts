import type { Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { describeOnNewDatabase, migrateBefore } from '../helpers/migrations.js';

const UUID = (n: number) => `0190ffff-0000-7000-8000-${String(n).padStart(12, '0')}`;

describeOnNewDatabase('migration 012: card states and the sandbox KYC switch', (t) => {
  it("gives cards without funding sources their cardholder's account, keeps the others, and turns auto-approval on for existing platforms", async () => {
    const { store } = t;
    await migrateBefore(store, '012');

    const db = store.db as never as Kysely<any>;
    await db.insertInto('platforms').values({ id: 'Platform:p', name: 'p', created_at: 1 }).execute();
    await db.insertInto('platform_webhook_config').values({ platform_id: 'Platform:p', secret: 'whsec_x', created_at: 1, updated_at: 1 }).execute();
    const customer = (n: number) => ({ id: `Customer:${UUID(n)}`, platform_id: 'Platform:p', customer_type: 'INDIVIDUAL', platform_customer_id: `c${n}`, kyc_status: 'UNVERIFIED', data: '{}', owner_count: 0, uma_address: `$c${n}@x.invalid`, created_at: 1, updated_at: 1 });
    await db.insertInto('customers').values([customer(1), customer(2)]).execute();
    const account = (n: number) => `InternalAccount:${UUID(n)}`;
    await db.insertInto('internal_accounts').values({ id: account(1), platform_id: 'Platform:p', customer_id: customer(1).id, type: 'INTERNAL_FIAT', status: 'ACTIVE', currency: 'USD', available_balance: 0, total_balance: 0, created_at: 1, updated_at: 1 }).execute();
    const card = (id: string, holder: number, fundingSources: string) => ({ id, platform_id: 'Platform:p', cardholder_id: customer(holder).id, platform_card_id: id, state: 'ACTIVE', form: 'VIRTUAL', brand: 'VISA', last4: '0000', exp_month: 1, exp_year: 2030, currency: 'USD', funding_sources: fundingSources, created_at: 1, updated_at: 1 });
    // Customer 2 has no account yet (written straight to the store): its card keeps its empty list until one exists.
    await db.insertInto('cards').values([card('Card:empty', 1, '[]'), card('Card:named', 1, '["InternalAccount:other"]'), card('Card:no-account', 2, '[]')]).execute();

    // Up to 012 only: 020 drops the switch again.
    await migrateBefore(store, '013');

    const cards = await store.db.selectFrom('cards').select(['id', 'funding_sources', 'state', 'state_reason']).orderBy('id').execute();
    expect(cards).toEqual([
      { id: 'Card:empty', funding_sources: JSON.stringify([account(1)]), state: 'ACTIVE', state_reason: null },
      { id: 'Card:named', funding_sources: '["InternalAccount:other"]', state: 'ACTIVE', state_reason: null },
      { id: 'Card:no-account', funding_sources: '[]', state: 'ACTIVE', state_reason: null },
    ]);
    const config = await db.selectFrom('platform_webhook_config').select('sandbox_kyc_auto_approval').executeTakeFirstOrThrow();
    expect(Number(config.sandbox_kyc_auto_approval)).toBe(1);
  });
});
