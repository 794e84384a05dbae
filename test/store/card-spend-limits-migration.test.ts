import type { Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { migrateToLatest } from '../../src/store/migrator.js';
import { describeOnNewDatabase, migrateBefore } from '../helpers/migrations.js';

describeOnNewDatabase('migration 016: card spending limits', (t) => {
  it('gives an existing card no limit (null) and takes one above 32 bits afterwards', async () => {
    const { store } = t;
    await migrateBefore(store, '016');

    const db = store.db as never as Kysely<any>;
    await db.insertInto('platforms').values({ id: 'Platform:p', name: 'p', created_at: 1 }).execute();
    await db.insertInto('customers').values({ id: 'Customer:c', platform_id: 'Platform:p', customer_type: 'INDIVIDUAL', platform_customer_id: 'c', kyc_status: 'APPROVED', data: '{}', owner_count: 0, uma_address: '$c@x.invalid', created_at: 1, updated_at: 1 }).execute();
    const card = (id: string) => ({ id, platform_id: 'Platform:p', cardholder_id: 'Customer:c', platform_card_id: id, state: 'ACTIVE', form: 'VIRTUAL', brand: 'VISA', last4: '0000', exp_month: 1, exp_year: 2030, currency: 'USD', funding_sources: '[]', created_at: 1, updated_at: 1 });
    await db.insertInto('cards').values(card('Card:existing')).execute();

    await migrateToLatest(store);

    await store.db.insertInto('cards').values({ ...card('Card:new'), state_reason: null, max_spend_per_transaction: 5_000_000_000 }).execute();
    const cards = await store.db.selectFrom('cards').select(['id', 'max_spend_per_transaction']).orderBy('id').execute();
    expect(cards).toEqual([
      { id: 'Card:existing', max_spend_per_transaction: null },
      { id: 'Card:new', max_spend_per_transaction: 5_000_000_000 },
    ]);
  });
});
