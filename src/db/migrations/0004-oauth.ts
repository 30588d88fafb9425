// Frozen in time: never edit a migration that has shipped; add a new one.
// The OAuth authorization server's state (oidc-provider models: clients registered dynamically,
// grants, interactions, sessions, codes, access and refresh tokens), one row per model and id, so
// it survives restarts and every instance sees the same.
import type { Kysely } from 'kysely';
import { textType } from '../dialect-info.ts';

export async function up(db: Kysely<any>): Promise<void> {
  const text = textType(db);
  await db.schema.createTable('oauth_entities')
    .addColumn('model', text, (c) => c.notNull())
    // For tokens and codes the SHA-256 of the value, never the value itself.
    .addColumn('id', text, (c) => c.notNull())
    .addColumn('payload', text, (c) => c.notNull())
    .addColumn('grant_id', text)
    .addColumn('account_id', text)
    .addColumn('uid', text)
    .addColumn('expires_at', text)
    .addColumn('consumed_at', text)
    .addPrimaryKeyConstraint('oauth_entities_pk', ['model', 'id'])
    .execute();
  await db.schema.createIndex('oauth_entities_grant_idx').on('oauth_entities').column('grant_id').execute();
  await db.schema.createIndex('oauth_entities_uid_idx').on('oauth_entities').column('uid').execute();
  await db.schema.createIndex('oauth_entities_account_idx').on('oauth_entities').columns(['account_id', 'model']).execute();
  await db.schema.createIndex('oauth_entities_expires_idx').on('oauth_entities').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_entities').execute();
}
