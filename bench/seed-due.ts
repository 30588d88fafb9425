// Gives a user review history for the due-count figures, straight into a store: for each of the
// user's decks, a schedule for half its cards, due times spread from 10 days ago to 10 days ahead
// (so about a quarter of the cards are due, a quarter are due later, half are new). Answering
// 12,500 cards over HTTP would take minutes and measure the answers, not the counts.
//
//   DATA_DIR=... [DATABASE_URL=...] node bench/seed-due.ts USER_ID
import { loadConfig } from '../src/config.ts';
import { openStore } from '../src/db/database.ts';
import { sql } from 'kysely';
import { insertRows, isPostgres } from '../src/db/dialect-info.ts';

const [userId] = process.argv.slice(2);
if (!userId) throw new Error('usage: node bench/seed-due.ts USER_ID');

const config = loadConfig(process.env);
const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
try {
  const cards = await store.db.selectFrom('cards').innerJoin('decks', 'decks.id', 'cards.deck_id')
    .select(['cards.id', 'cards.deck_id', 'cards.position']).where('decks.user_id', '=', userId).execute();
  const now = Date.now();
  const rows = cards.filter((c) => Number(c.position) % 2 === 0).map((c, i) => {
    const due = new Date(now + ((i % 21) - 10) * 86_400_000 + 60_000).toISOString();
    return {
      user_id: userId, card_id: c.id, deck_id: c.deck_id, due, stability: 5, difficulty: 5, elapsed_days: 3, scheduled_days: 5,
      learning_steps: 0, reps: 2, lapses: 0, state: 2, last_review: new Date(now - 3 * 86_400_000).toISOString(),
    };
  });
  await store.db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += 500) await insertRows(trx, 'card_schedules', rows.slice(i, i + 500));
  });
  // What autovacuum does soon after a bulk insert on a live PostgreSQL: without statistics the
  // planner takes the table for empty and aggregates 12,500 rows in a hash sized for 35 (15 ms
  // where 3.5 ms is the query's cost).
  if (isPostgres(store.db)) await sql`vacuum analyze card_schedules`.execute(store.db);
  else await sql`analyze`.execute(store.db);
  process.stderr.write(`seeded ${rows.length} schedules\n`);
} finally {
  await store.close();
}
