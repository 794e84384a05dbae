import type { Executor } from './store.js';
import type { KycLinkRow } from './tables/onboarding-links.js';
import type { UnitOfWork } from './unit-of-work.js';

export async function insertKycLink(uow: UnitOfWork, row: KycLinkRow): Promise<void> {
  await uow.db.insertInto('kyc_links').values(row).execute();
}

/** The platform a link belongs to (its clock decides whether it has expired). */
export async function findKycLinkPlatform(db: Executor, id: string): Promise<string | undefined> {
  return (await db.selectFrom('kyc_links').select('platform_id').where('id', '=', id).executeTakeFirst())?.platform_id;
}

/** An unused link that has not expired at `now` (the page shows it; only the submission uses it up). */
export async function findOpenKycLink(db: Executor, id: string, now: number): Promise<KycLinkRow | undefined> {
  return db.selectFrom('kyc_links').selectAll().where('id', '=', id).where('used_at', 'is', null).where('expires_at', '>', now).executeTakeFirst();
}

/** Marks the link used if it is unused and not expired at `now`; one statement, so of two submissions only one gets it. */
export async function useKycLink(db: Executor, id: string, now: number): Promise<KycLinkRow | undefined> {
  return db.updateTable('kyc_links').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).where('expires_at', '>', now).returningAll().executeTakeFirst();
}
