import type { Executor } from './store.js';
import type { FormSubmissionRow } from './tables/form-submissions.js';

type Key = Pick<FormSubmissionRow, 'platform_id' | 'token' | 'path' | 'body_sha256'>;

/** Records the first submission of a form's token; false when one is recorded already (one statement: of two at once, one wins). */
export async function claimFormSubmission(db: Executor, key: Key, now: number): Promise<boolean> {
  const r = await db
    .insertInto('form_submissions')
    .values({ ...key, location: null, created_at: now })
    .onConflict((oc) => oc.columns(['platform_id', 'token', 'path', 'body_sha256']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** The recorded submission, if any: `location` null while it runs. */
export async function findFormSubmission(db: Executor, key: Key): Promise<Pick<FormSubmissionRow, 'location'> | undefined> {
  return db.selectFrom('form_submissions').select('location').where((eb) => eb.and(key)).executeTakeFirst();
}

export async function completeFormSubmission(db: Executor, key: Key, location: string): Promise<void> {
  await db.updateTable('form_submissions').set({ location }).where((eb) => eb.and(key)).execute();
}

export async function deleteFormSubmission(db: Executor, key: Key): Promise<void> {
  await db.deleteFrom('form_submissions').where((eb) => eb.and(key)).execute();
}

/** Deletes the submissions recorded before `before`; answers how many. */
export async function deleteFormSubmissionsBefore(db: Executor, before: number): Promise<number> {
  const r = await db.deleteFrom('form_submissions').where('created_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}
