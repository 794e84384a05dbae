import type { Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { migrateToLatest } from '../../src/store/migrator.js';
import { describeOnNewDatabase, migrateBefore } from '../helpers/migrations.js';

const UUID = (n: number) => `0190ffff-0000-7000-8000-${String(n).padStart(12, '0')}`;

describeOnNewDatabase('migration 020: verifications, and the end of the automatic KYC approval', (t) => {
  it('keeps every customer status (approved stays approved), drops queued auto-approval jobs, leaves other jobs, and creates the verifications table', async () => {
    const { store } = t;
    await migrateBefore(store, '020');

    const db = store.db as never as Kysely<any>;
    await db.insertInto('platforms').values({ id: 'Platform:p', name: 'p', created_at: 1 }).execute();
    await db.insertInto('platform_webhook_config').values({ platform_id: 'Platform:p', secret: 'whsec_x', created_at: 1, updated_at: 1, sandbox_kyc_auto_approval: 0 }).execute();
    const customer = (n: number, status: string) => ({ id: `Customer:${UUID(n)}`, platform_id: 'Platform:p', customer_type: n === 1 ? 'INDIVIDUAL' : 'BUSINESS', platform_customer_id: `c${n}`, kyc_status: status, data: '{}', owner_count: 0, uma_address: `$c${n}@x.invalid`, created_at: 1, updated_at: 1 });
    await db.insertInto('customers').values([customer(1, 'APPROVED'), customer(2, 'APPROVED'), customer(3, 'UNVERIFIED'), customer(4, 'REJECTED')]).execute();
    const job = (id: string, kind: string, state: string, customerId: string) => ({ id, kind, payload: JSON.stringify({ platformId: 'Platform:p', customerId }), state, run_at: 1, attempts: 0, created_at: 1, updated_at: 1 });
    await db
      .insertInto('jobs')
      .values([
        job('Job:queued', 'customer.kyc_auto_approval', 'queued', customer(3, '').id),
        job('Job:done', 'customer.kyc_auto_approval', 'done', customer(1, '').id),
        job('Job:other', 'webhook.deliver', 'queued', customer(2, '').id),
      ])
      .execute();

    await migrateToLatest(store);

    const statuses = await store.db.selectFrom('customers').select(['id', 'kyc_status']).orderBy('id').execute();
    expect(statuses.map((c) => c.kyc_status)).toEqual(['APPROVED', 'APPROVED', 'UNVERIFIED', 'REJECTED']);
    // The platform's switch for the old approval is gone with it; the rest of its configuration stays.
    const config = (await db.selectFrom('platform_webhook_config').selectAll().executeTakeFirstOrThrow()) as Record<string, unknown>;
    expect(config).not.toHaveProperty('sandbox_kyc_auto_approval');
    expect(config.secret).toBe('whsec_x');
    expect((await store.db.selectFrom('jobs').select('id').orderBy('id').execute()).map((j) => j.id)).toEqual(['Job:other']);
    await store.db.insertInto('verifications').values({ id: 'Verification:v', platform_id: 'Platform:p', customer_id: customer(3, '').id, status: 'RESOLVE_ERRORS', errors: '[]', created_at: 2, updated_at: 2 }).execute();
    expect(await store.db.selectFrom('verifications').select(['id', 'list_position']).execute()).toEqual([{ id: 'Verification:v', list_position: expect.anything() }]);
  });
});
