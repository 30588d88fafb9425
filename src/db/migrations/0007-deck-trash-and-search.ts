// Frozen in time: never edit a migration that has shipped; add a new one.
// Decks in the trash (deleted_at; purged 30 days later) and the full-text index of decks and cards
// (modules/search-index/search-index.repository.ts keeps it in step with every write). One row of
// search_documents per deck (its title, description and tags) and per card (its text), with the
// database's own engine: an FTS5 table on SQLite, a tsvector with a GIN index on PostgreSQL. The
// index is built here for the decks that exist already.
import { sql, type Kysely } from 'kysely';
import { isPostgres, textType } from '../dialect-info.ts';

export async function up(db: Kysely<any>): Promise<void> {
  const text = textType(db);
  await db.schema.alterTable('decks').addColumn('deleted_at', text).execute();
  // The trash (per user, newest first) and the purge (oldest first).
  await db.schema.createIndex('decks_trash_idx').on('decks').columns(['user_id', 'deleted_at', 'id'])
    .where(sql.ref('deleted_at'), 'is not', null).execute();
  await db.schema.createIndex('decks_deleted_at_idx').on('decks').column('deleted_at')
    .where(sql.ref('deleted_at'), 'is not', null).execute();
  // GET /public/decks: every user's public decks, newest first.
  await db.schema.createIndex('decks_public_idx').on('decks').columns(['updated_at', 'id'])
    .where(sql.ref('visibility'), '=', 'public').execute();
  // The purge and a deck's delete find its sessions by deck.
  await db.schema.createIndex('review_sessions_deck_idx').on('review_sessions').column('deck_id').execute();

  // A deck's tags, folded to lower case (JavaScript's, the same on both stores): GET /decks?tag=
  // and GET /public/decks?tag= match one exactly.
  await db.schema.createTable('deck_tags')
    .addColumn('deck_id', text, (c) => c.notNull())
    .addColumn('tag_key', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('deck_tags_pk', ['deck_id', 'tag_key'])
    .execute();
  await db.schema.createIndex('deck_tags_key_idx').on('deck_tags').columns(['tag_key', 'deck_id']).execute();

  if (isPostgres(db)) {
    await db.schema.createTable('search_documents')
      .addColumn('deck_id', text, (c) => c.notNull())
      // The card's id, or the deck's own id for the deck's document.
      .addColumn('doc_id', text, (c) => c.notNull())
      .addColumn('user_id', text, (c) => c.notNull())
      .addColumn('tsv', sql`tsvector`, (c) => c.notNull())
      .addPrimaryKeyConstraint('search_documents_pk', ['deck_id', 'doc_id'])
      .execute();
    await db.schema.createIndex('search_documents_user_idx').on('search_documents').column('user_id').execute();
    await sql`create index search_documents_tsv_idx on search_documents using gin (tsv)`.execute(db);
  } else {
    await db.schema.createTable('search_documents')
      // The FTS5 row's rowid.
      .addColumn('rowid', 'integer', (c) => c.primaryKey())
      .addColumn('deck_id', text, (c) => c.notNull())
      .addColumn('doc_id', text, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('search_documents_deck_idx').on('search_documents').columns(['deck_id', 'doc_id']).unique().execute();
    // Contentless: the text lives in decks and cards only. `owner` holds one token per user, so a
    // user's search intersects posting lists instead of filtering every user's matches.
    await sql`create virtual table search_fts using fts5(owner, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`.execute(db);
    // Relevance (the `rank` column, usable in aggregates where bm25() is not) from the body only.
    await sql`insert into search_fts (search_fts, rank) values ('rank', 'bm25(0.0, 1.0)')`.execute(db);
  }
  await buildIndex(db);
}

/** The index of every deck not in the trash (none is, yet), a page of decks at a time. */
async function buildIndex(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  let after = '';
  for (;;) {
    const decks = await db.selectFrom('decks').select(['id', 'user_id', 'title', 'description', 'tags'])
      .where('id', '>', after).orderBy('id').limit(200).execute() as { id: string; user_id: string; title: string; description: string | null; tags: string }[];
    if (decks.length === 0) return;
    for (const deck of decks) {
      for (const key of new Set((JSON.parse(deck.tags) as string[]).map((t) => t.toLowerCase()))) {
        await db.insertInto('deck_tags').values({ deck_id: deck.id, tag_key: key }).execute();
      }
      const cards = await db.selectFrom('cards').select(['id', 'data']).where('deck_id', '=', deck.id).execute() as { id: string; data: string }[];
      const docs = [
        { docId: deck.id, body: deckDocumentText(deck.title, deck.description, JSON.parse(deck.tags) as string[]) },
        ...cards.map((c) => ({ docId: c.id, body: cardDocumentText(c.data) })),
      ];
      for (const doc of docs) {
        if (pg) {
          await sql`insert into search_documents (deck_id, doc_id, user_id, tsv) values (${deck.id}, ${doc.docId}, ${deck.user_id}, to_tsvector('simple', ${doc.body}))`.execute(db);
        } else {
          const row = await sql<{ rowid: number }>`insert into search_documents (deck_id, doc_id) values (${deck.id}, ${doc.docId}) returning rowid`.execute(db);
          await sql`insert into search_fts (rowid, owner, body) values (${row.rows[0].rowid}, ${ownerToken(deck.user_id)}, ${doc.body})`.execute(db);
        }
      }
    }
    after = decks[decks.length - 1].id;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) await sql`drop table search_fts`.execute(db);
  await db.schema.dropTable('search_documents').execute();
  await db.schema.dropTable('deck_tags').execute();
  await db.schema.dropIndex('review_sessions_deck_idx').execute();
  await db.schema.dropIndex('decks_public_idx').execute();
  await db.schema.dropIndex('decks_deleted_at_idx').execute();
  await db.schema.dropIndex('decks_trash_idx').execute();
  await db.schema.alterTable('decks').dropColumn('deleted_at').execute();
}

// The index's text as of this migration (modules/search-index/search-text.ts), copied so that this file
// stays as it shipped whatever the module becomes.
const WORD = /[\p{L}\p{N}]+/gu;
function indexedText(parts: readonly (string | null | undefined)[]): string {
  const words: string[] = [];
  for (const part of parts) {
    if (part) words.push(...(part.slice(0, 20_000).normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().match(WORD) ?? []));
  }
  return words.join(' ');
}
function deckDocumentText(title: string, description: string | null, tags: readonly string[]): string {
  return indexedText([title, description, ...tags]);
}
function cardDocumentText(data: string): string {
  const card = JSON.parse(data) as { front?: string | null; back?: string | null; extras?: { info?: string | null; frontType?: string; backType?: string } };
  const side = (value: string | null | undefined, type: string | undefined) => (value && type === 'html' ? value.replace(/<[^>]{0,2000}>/g, ' ') : value);
  return indexedText([side(card.front, card.extras?.frontType), side(card.back, card.extras?.backType), card.extras?.info]);
}
function ownerToken(userId: string): string {
  return `u${Buffer.from(userId, 'utf8').toString('hex')}`;
}
