// Bulk-seeds decks for the list figures, straight into a store, as one transaction of 500-row
// inserts: 100,000 decks take a few seconds here where imports over HTTP would take many minutes.
// The user comes from the CLI; the decks have no cards (the list never reads them).
//
//   DATA_DIR=... [DATABASE_URL=...] node bench/seed-list.ts USER_ID COUNT
import { loadConfig } from '../src/config.ts';
import { migrateToLatest, openStore } from '../src/db/database.ts';
import { newId } from '../src/ids.ts';
import { listDeckFields } from './deck-fixture.ts';

const [userId, countText] = process.argv.slice(2);
const count = Number(countText);
if (!userId || !Number.isInteger(count) || count < 0) throw new Error('usage: node bench/seed-list.ts USER_ID COUNT');

const config = loadConfig(process.env);
const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
try {
  await migrateToLatest(store.db);
  const start = Date.parse('2024-01-01T00:00:00.000Z');
  const BATCH = 500;
  await store.db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i += BATCH) {
      const rows = [];
      for (let j = i; j < Math.min(count, i + BATCH); j++) {
        const fields = listDeckFields(j);
        // Distinct, spread-out update times, so the keyset order is the realistic one.
        const at = new Date(start + j * 7_919).toISOString();
        rows.push({
          id: newId('dck'), user_id: userId, title: fields.title, description: fields.description, lang: 'en',
          visibility: 'private', tags: JSON.stringify(fields.tags), thumbnail: null, card_count: fields.cardCount,
          created_at: at, updated_at: at,
        });
      }
      await trx.insertInto('decks').values(rows).execute();
    }
  });
} finally {
  await store.close();
}
