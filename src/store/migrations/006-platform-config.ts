import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/**
 * The platform configuration grows beyond webhooks: the fields of the interface's config
 * (JSON as text where they are structured) and the ECDSA P-256 key pair that signs
 * X-Grid-Signature. Rows made before this migration get their key pair on first use.
 */
export const m006PlatformConfig: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    const add = (column: string) => db.schema.alterTable('platform_webhook_config').addColumn(column, 'text').execute();
    await add('signing_private_key');
    await add('signing_public_key');
    await add('uma_domain');
    await add('supported_currencies');
    await add('embedded_wallet_config');
    await add('card_tokenization_2fa_config');
    await add('fee_configs');
  },
});
