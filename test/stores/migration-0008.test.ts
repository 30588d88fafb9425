// Migration 0008 on a store that already holds review history (on both stores): answers keep their
// rows as pass 0 under the new key, schedules learn their card's deck, sessions are not relearn.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Migration } from 'kysely/migration';
import { migrateToLatest, type Store } from '../../src/db/database.ts';
import * as m0001 from '../../src/db/migrations/0001-initial.ts';
import * as m0002 from '../../src/db/migrations/0002-reviews.ts';
import * as m0003 from '../../src/db/migrations/0003-accounts.ts';
import * as m0004 from '../../src/db/migrations/0004-oauth.ts';
import * as m0006 from '../../src/db/migrations/0006-media.ts';
import { storeForMigrations, type MigratedStore } from '../helpers/migrations.ts';

const BEFORE: Record<string, Migration> = { '0001-initial': m0001, '0002-reviews': m0002, '0003-accounts': m0003, '0004-oauth': m0004, '0006-media': m0006 };
const AT = '2026-03-02T09:00:00.000Z';

describe('migration 0008 on existing review history', () => {
  let migrated: MigratedStore;
  let store: Store;

  before(async () => {
    migrated = await storeForMigrations();
    store = migrated.store;
    await migrated.migrate(BEFORE);
    const db = store.db as never as import('kysely').Kysely<any>;
    await db.insertInto('users').values({ id: 'usr_1', email: 'a@example.com', created_at: AT, updated_at: AT }).execute();
    await db.insertInto('decks').values({
      id: 'dck_1', user_id: 'usr_1', title: 'T', description: null, lang: 'en', visibility: 'private', tags: '[]', thumbnail: null, card_count: 2, created_at: AT, updated_at: AT,
    }).execute();
    for (const [i, id] of ['crd_1', 'crd_2'].entries()) {
      await db.insertInto('cards').values({ id, deck_id: 'dck_1', position: i, data: '{}', content_hash: id }).execute();
    }
    await db.insertInto('review_sessions').values({
      id: 'rev_1', user_id: 'usr_1', deck_id: 'dck_1', status: 'active', deck_version: AT, cards: '["crd_1","crd_2"]', answered: 1, stats: null, started_at: AT, updated_at: AT, completed_at: null,
    }).execute();
    await db.insertInto('review_answers').values({ session_id: 'rev_1', card_id: 'crd_1', seq: 1, rating: 'good', duration_ms: 100, answered_at: AT, due: AT }).execute();
    const schedule = { due: AT, stability: 1, difficulty: 5, elapsed_days: 0, scheduled_days: 0, learning_steps: 1, reps: 1, lapses: 0, state: 1, last_review: AT };
    await db.insertInto('card_schedules').values({ user_id: 'usr_1', card_id: 'crd_1', ...schedule }).execute();
    await db.insertInto('card_schedules').values({ user_id: 'usr_1', card_id: 'crd_gone', ...schedule }).execute();
    await migrateToLatest(store.db);
  });
  after(async () => { await migrated.close(); });

  test('should keep every answer as pass 0 and take a second pass of the same card', async () => {
    const answers = await store.db.selectFrom('review_answers').selectAll().execute();
    assert.deepEqual(answers.map((a) => [a.card_id, Number(a.pass), a.rating, Number(a.duration_ms)]), [['crd_1', 0, 'good', 100]]);
    await store.db.insertInto('review_answers').values({ session_id: 'rev_1', card_id: 'crd_1', pass: 1, seq: 2, rating: 'again', duration_ms: null, answered_at: AT, due: AT }).execute();
    await assert.rejects(
      store.db.insertInto('review_answers').values({ session_id: 'rev_1', card_id: 'crd_1', pass: 1, seq: 3, rating: 'good', duration_ms: null, answered_at: AT, due: AT }).execute(),
      'one answer per card and pass',
    );
  });

  test("should give each schedule its card's deck, and none to a card that is gone", async () => {
    const rows = await store.db.selectFrom('card_schedules').select(['card_id', 'deck_id']).orderBy('card_id').execute();
    assert.deepEqual(rows.map((r) => [r.card_id, r.deck_id]), [['crd_1', 'dck_1'], ['crd_gone', null]]);
  });

  test('should make existing sessions plain ones', async () => {
    const session = await store.db.selectFrom('review_sessions').select(['relearn']).where('id', '=', 'rev_1').executeTakeFirstOrThrow();
    assert.equal(Number(session.relearn), 0);
  });
});
