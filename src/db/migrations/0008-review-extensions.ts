// Frozen in time: never edit a migration that has shipped; add a new one.
// Review extensions (DECISIONS "Beyond the spec's operations"): relearn sessions, where a card rated
// `again` comes back up to 3 times, so a card may have an answer per pass (`pass` 0 is the card's
// place in the queue, 1 to 3 its returns); each schedule knows its deck, so the due counts of all of
// a user's decks are one index range (GET /reviews/due); and sessions are listed newest first.
import { sql, type Kysely } from 'kysely';
import { isPostgres, textType } from '../dialect-info.ts';

export async function up(db: Kysely<any>): Promise<void> {
  const text = textType(db);
  await db.schema.alterTable('review_sessions').addColumn('relearn', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  // The answers' key gains the pass. SQLite cannot change a primary key in place: the table is
  // rebuilt (nothing refers to it); PostgreSQL swaps the constraint.
  if (isPostgres(db)) {
    await sql`alter table review_answers add column pass integer not null default 0`.execute(db);
    await sql`alter table review_answers drop constraint review_answers_pk`.execute(db);
    await sql`alter table review_answers add constraint review_answers_pk primary key (session_id, card_id, pass)`.execute(db);
  } else {
    await db.schema.createTable('review_answers_v2')
      .addColumn('session_id', text, (c) => c.notNull().references('review_sessions.id'))
      .addColumn('card_id', text, (c) => c.notNull())
      .addColumn('pass', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('rating', text, (c) => c.notNull())
      .addColumn('duration_ms', 'integer')
      .addColumn('answered_at', text, (c) => c.notNull())
      .addColumn('due', text, (c) => c.notNull())
      // One answer per card and pass per session: a concurrent duplicate conflicts here.
      .addPrimaryKeyConstraint('review_answers_pk', ['session_id', 'card_id', 'pass'])
      .execute();
    await sql`insert into review_answers_v2 (session_id, card_id, pass, seq, rating, duration_ms, answered_at, due)
      select session_id, card_id, 0, seq, rating, duration_ms, answered_at, due from review_answers`.execute(db);
    await db.schema.dropTable('review_answers').execute();
    await db.schema.alterTable('review_answers_v2').renameTo('review_answers').execute();
  }

  await db.schema.alterTable('card_schedules').addColumn('deck_id', text).execute();
  await sql`update card_schedules set deck_id = (select cards.deck_id from cards where cards.id = card_schedules.card_id)`.execute(db);
  await db.schema.createIndex('card_schedules_user_deck_due_idx').on('card_schedules').columns(['user_id', 'deck_id', 'due']).execute();

  await db.schema.createIndex('review_sessions_user_started_idx').on('review_sessions').columns(['user_id', 'started_at', 'id']).execute();
  await db.schema.createIndex('review_sessions_user_deck_started_idx').on('review_sessions').columns(['user_id', 'deck_id', 'started_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('review_sessions_user_deck_started_idx').execute();
  await db.schema.dropIndex('review_sessions_user_started_idx').execute();
  await db.schema.dropIndex('card_schedules_user_deck_due_idx').execute();
  await db.schema.alterTable('card_schedules').dropColumn('deck_id').execute();
}
