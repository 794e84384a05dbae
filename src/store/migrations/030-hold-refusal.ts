import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/**
 * PostgreSQL: the function a hold written at commit calls when the account's available balance no
 * longer covers it (accounts-repo.ts, holdAtCommit). It raises HOLD_REFUSED, so the statement, and
 * the transaction sent with it, fail and the caller can decide again under the account's lock.
 * SQLite writes its holds at once and needs none.
 */
export const m030HoldRefusal: MigrationFactory = (engine) => ({
  async up(db: Kysely<any>) {
    if (engine !== 'postgres') return;
    await sql`create or replace function payments_refuse_hold(account text) returns integer language plpgsql as $body$
      begin
        raise exception 'the available balance of % does not cover the hold', account using errcode = 'GH001';
      end
      $body$`.execute(db);
  },
});
