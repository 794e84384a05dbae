import { sql } from 'kysely';
import type { Executor, Queryable } from './store.js';
import type { FormSubmissionRow } from './tables/form-submissions.js';

/** Records the first submission of a form's token; false when one is recorded already (one statement: of two at once, one wins). */
export async function claimFormSubmission(db: Executor, row: Pick<FormSubmissionRow, 'id' | 'platform_id' | 'created_at'>): Promise<boolean> {
  const r = await db
    .insertInto('form_submissions')
    .values({ ...row, location: null })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** The recorded submission, if any: `location` null while it runs. */
export async function findFormSubmission(db: Executor, id: string): Promise<Pick<FormSubmissionRow, 'location'> | undefined> {
  return db.selectFrom('form_submissions').select('location').where('id', '=', id).executeTakeFirst();
}

export async function completeFormSubmission(db: Executor, id: string, location: string): Promise<void> {
  await db.updateTable('form_submissions').set({ location }).where('id', '=', id).execute();
}

export async function deleteFormSubmission(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('form_submissions').where('id', '=', id).execute();
}

/** Deletes up to `limit` submissions recorded before `before`; answers how many (PostgreSQL skips rows another process is deleting). */
export async function deleteFormSubmissionsBefore(on: Queryable, before: number, limit: number): Promise<number> {
  let old = on.db.selectFrom('form_submissions').select('id').where('created_at', '<', before).limit(limit);
  if (on.engine === 'postgres') old = old.modifyEnd(sql`for update skip locked`);
  const r = await on.db.deleteFrom('form_submissions').where('id', 'in', old).executeTakeFirst();
  return Number(r.numDeletedRows);
}
