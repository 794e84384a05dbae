import type { Executor } from './store.js';
import type { ContactChallengeRow, ContactChannel } from './tables/onboarding-links.js';

/** Issues a new code for the channel, replacing any outstanding one (its wrong attempts with it). */
export async function replaceContactChallenge(db: Executor, row: ContactChallengeRow): Promise<void> {
  await deleteContactChallenge(db, row.platform_id, row.customer_id, row.channel);
  await db.insertInto('contact_challenges').values(row).execute();
}

export async function findContactChallenge(db: Executor, platformId: string, customerId: string, channel: ContactChannel): Promise<ContactChallengeRow | undefined> {
  return db.selectFrom('contact_challenges').selectAll().where('platform_id', '=', platformId).where('customer_id', '=', customerId).where('channel', '=', channel).executeTakeFirst();
}

export async function countFailedContactAttempt(db: Executor, platformId: string, customerId: string, channel: ContactChannel): Promise<void> {
  await db
    .updateTable('contact_challenges')
    .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
    .where('platform_id', '=', platformId)
    .where('customer_id', '=', customerId)
    .where('channel', '=', channel)
    .execute();
}

export async function deleteContactChallenge(db: Executor, platformId: string, customerId: string, channel: ContactChannel): Promise<void> {
  await db.deleteFrom('contact_challenges').where('platform_id', '=', platformId).where('customer_id', '=', customerId).where('channel', '=', channel).execute();
}
