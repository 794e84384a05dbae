import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/**
 * A customer's owners' version: moved by every write to its owners (an owner added, an owner
 * changed), in the same transaction. An owner page read at one version is the page at every moment
 * the version is unchanged, so a process may keep it and answer it again after checking only the
 * version (BeneficialOwnerService.list).
 */
export const m015OwnerVersions: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('customers').addColumn('owners_version', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  },
});
