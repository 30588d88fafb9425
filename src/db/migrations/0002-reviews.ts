// Frozen in time: never edit a migration that has shipped; add a new one.
// Review sessions, their answers, and each user's FSRS schedule per card.
import { sql, type Kysely } from 'kysely';
import { textType } from '../dialect-info.ts';

export async function up(db: Kysely<any>): Promise<void> {
  // Byte-order text on PostgreSQL, as on SQLite (see textType).
  const text = textType(db);
  await db.schema.createTable('review_sessions')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('user_id', text, (c) => c.notNull().references('users.id'))
    // No foreign key to decks: a session is history and must not block a future deck deletion.
    .addColumn('deck_id', text, (c) => c.notNull())
    .addColumn('status', text, (c) => c.notNull())
    .addColumn('deck_version', text, (c) => c.notNull())
    .addColumn('cards', text, (c) => c.notNull())
    .addColumn('answered', 'integer', (c) => c.notNull())
    .addColumn('stats', text)
    .addColumn('started_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .addColumn('completed_at', text)
    .execute();
  // At most one active session per user and deck, whatever races the service loses.
  await db.schema.createIndex('review_sessions_one_active_idx').on('review_sessions')
    .columns(['user_id', 'deck_id']).unique().where(sql.ref('status'), '=', 'active')
    .execute();

  await db.schema.createTable('review_answers')
    .addColumn('session_id', text, (c) => c.notNull().references('review_sessions.id'))
    .addColumn('card_id', text, (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('rating', text, (c) => c.notNull())
    .addColumn('duration_ms', 'integer')
    .addColumn('answered_at', text, (c) => c.notNull())
    .addColumn('due', text, (c) => c.notNull())
    // One answer per card per session: a concurrent duplicate conflicts here.
    .addPrimaryKeyConstraint('review_answers_pk', ['session_id', 'card_id'])
    .execute();

  // ts-fsrs Card fields, one row per user and card.
  await db.schema.createTable('card_schedules')
    .addColumn('user_id', text, (c) => c.notNull().references('users.id'))
    .addColumn('card_id', text, (c) => c.notNull())
    .addColumn('due', text, (c) => c.notNull())
    .addColumn('stability', 'double precision', (c) => c.notNull())
    .addColumn('difficulty', 'double precision', (c) => c.notNull())
    .addColumn('elapsed_days', 'integer', (c) => c.notNull())
    .addColumn('scheduled_days', 'integer', (c) => c.notNull())
    .addColumn('learning_steps', 'integer', (c) => c.notNull())
    .addColumn('reps', 'integer', (c) => c.notNull())
    .addColumn('lapses', 'integer', (c) => c.notNull())
    .addColumn('state', 'integer', (c) => c.notNull())
    .addColumn('last_review', text)
    .addPrimaryKeyConstraint('card_schedules_pk', ['user_id', 'card_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['card_schedules', 'review_answers', 'review_sessions']) {
    await db.schema.dropTable(table).execute();
  }
}
