// Frozen in time: never edit a migration that has shipped; add a new one.
// Uploaded images (POST /media, Anki packages): each stored once per content hash, in the database
// so that every instance serves it, and owned by the users who brought it (their quota).
import type { Kysely } from 'kysely';
import { blobType, textType } from '../dialect-info.ts';

export async function up(db: Kysely<any>): Promise<void> {
  const text = textType(db);
  await db.schema.createTable('media_blobs')
    // SHA-256 of the bytes, lower-case hex: the media's address (/media/<hash>.<ext>).
    .addColumn('hash', text, (c) => c.primaryKey())
    .addColumn('content_type', text, (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('data', blobType(db), (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createTable('media_owners')
    .addColumn('user_id', text, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('hash', text, (c) => c.notNull().references('media_blobs.hash'))
    .addColumn('created_at', text, (c) => c.notNull())
    // Set by the purge when no deck refers to the media, cleared when one does again; the row is
    // removed once it has been unreferenced for the grace period.
    .addColumn('unreferenced_since', text)
    .addPrimaryKeyConstraint('media_owners_pk', ['user_id', 'hash'])
    .execute();
  await db.schema.createIndex('media_owners_hash_idx').on('media_owners').column('hash').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('media_owners').execute();
  await db.schema.dropTable('media_blobs').execute();
}
