// Frozen in time: never edit a migration that has shipped; add a new one.
// Accounts in the browser: a password hash per user (null: the user has no password yet, as
// users made by `flashdeck users add`), and server-side sessions of the web pages.
import type { Kysely } from 'kysely';
import { textType } from '../dialect-info.ts';

export async function up(db: Kysely<any>): Promise<void> {
  const text = textType(db);
  await db.schema.alterTable('users').addColumn('password_hash', text).execute();

  await db.schema.createTable('web_sessions')
    // SHA-256 of the cookie's value: a copy of the table signs nobody in.
    .addColumn('id_hash', text, (c) => c.primaryKey())
    .addColumn('user_id', text, (c) => c.notNull().references('users.id'))
    .addColumn('created_at', text, (c) => c.notNull())
    // Idle expiry runs from here; refreshed at most once an hour per session (not on every page).
    .addColumn('seen_at', text, (c) => c.notNull())
    .execute();
  // Sign out everywhere and a password change end every session of one user.
  await db.schema.createIndex('web_sessions_user_idx').on('web_sessions').column('user_id').execute();
  await db.schema.createIndex('web_sessions_seen_idx').on('web_sessions').column('seen_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('web_sessions').execute();
  await db.schema.alterTable('users').dropColumn('password_hash').execute();
}
