// Migration 0010 on a store whose index 0007 built (on both stores): afterwards each user finds
// their own decks and cards by every word, nobody else's, and a public search finds the public
// deck only. (On SQLite the FTS5 table is made again with each user's words as terms of their
// own; PostgreSQL's index is unchanged.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { migrateToLatest, type Store } from '../../src/db/database.ts';
import * as m0001 from '../../src/db/migrations/0001-initial.ts';
import * as m0002 from '../../src/db/migrations/0002-reviews.ts';
import * as m0003 from '../../src/db/migrations/0003-accounts.ts';
import * as m0004 from '../../src/db/migrations/0004-oauth.ts';
import * as m0006 from '../../src/db/migrations/0006-media.ts';
import * as m0007 from '../../src/db/migrations/0007-deck-trash-and-search.ts';
import * as m0008 from '../../src/db/migrations/0008-review-extensions.ts';
import * as m0009 from '../../src/db/migrations/0009-activity-error-code.ts';
import { searchCardHits, searchDeckIds } from '../../src/modules/decks/deck-search.repository.ts';
import { queryWords } from '../../src/modules/search-index/search-text.ts';
import { storeForMigrations, type MigratedStore } from '../helpers/migrations.ts';

const UP_TO_0006: Record<string, Migration> = { '0001-initial': m0001, '0002-reviews': m0002, '0003-accounts': m0003, '0004-oauth': m0004, '0006-media': m0006 };
const UP_TO_0009: Record<string, Migration> = { ...UP_TO_0006, '0007-deck-trash-and-search': m0007, '0008-review-extensions': m0008, '0009-activity-error-code': m0009 };
const AT = '2026-03-02T09:00:00.000Z';

describe('migration 0010 on an index built by 0007', () => {
  let migrated: MigratedStore;
  let store: Store;

  before(async () => {
    migrated = await storeForMigrations();
    store = migrated.store;
    const migrate = (migrations: Record<string, Migration>) => migrated.migrate(migrations);
    await migrate(UP_TO_0006);
    const db = store.db as never as Kysely<any>;
    const deck = async (id: string, userId: string, title: string, visibility: string, cards: { front: string; back: string }[]) => {
      await db.insertInto('decks').values({
        id, user_id: userId, title, description: null, lang: 'en', visibility, tags: '["Birds"]', thumbnail: null, card_count: cards.length, created_at: AT, updated_at: AT,
      }).execute();
      for (const [i, card] of cards.entries()) await db.insertInto('cards').values({ id: `${id}_c${i}`, deck_id: id, position: i, data: JSON.stringify(card), content_hash: `${id}${i}` }).execute();
    };
    for (const id of ['usr_a', 'usr_b']) await db.insertInto('users').values({ id, email: `${id}@example.com`, created_at: AT, updated_at: AT }).execute();
    await deck('dck_a1', 'usr_a', 'Owls of the night', 'private', [{ front: 'Barn owl', back: 'Tyto alba' }, { front: 'Eule', back: 'Schleiereule über dem Feld' }]);
    await deck('dck_b1', 'usr_b', 'Owl facts', 'public', [{ front: 'Snowy owl', back: 'Bubo scandiacus' }]);
    await deck('dck_b2', 'usr_b', 'Secret owls', 'unlisted', [{ front: 'Hidden owl', back: 'unlisted' }]);
    await migrate(UP_TO_0009);
    await migrateToLatest(store.db);
  });
  after(async () => { await migrated.close(); });

  test("should find a user's own decks and cards by every word, and nobody else's", async () => {
    assert.deepEqual(await searchDeckIds(store.db, { userId: 'usr_a' }, queryWords('owl'), {}, 10, 0), ['dck_a1']);
    assert.deepEqual(await searchDeckIds(store.db, { userId: 'usr_a' }, queryWords('night birds'), {}, 10, 0), ['dck_a1']);
    assert.deepEqual((await searchCardHits(store.db, 'usr_a', queryWords('Über FELD'), 10, 0)).map((h) => h.cardId), ['dck_a1_c1']);
    assert.deepEqual(new Set(await searchDeckIds(store.db, { userId: 'usr_b' }, queryWords('owl'), {}, 10, 0)), new Set(['dck_b1', 'dck_b2']));
    assert.deepEqual(await searchCardHits(store.db, 'usr_b', queryWords('tyto'), 10, 0), []);
  });

  test('should find the public deck only in a public search', async () => {
    assert.deepEqual(await searchDeckIds(store.db, 'public', queryWords('owl'), {}, 10, 0), ['dck_b1']);
    assert.deepEqual(await searchDeckIds(store.db, 'public', queryWords('scandiacus'), {}, 10, 0), ['dck_b1']);
    assert.deepEqual(await searchDeckIds(store.db, 'public', queryWords('tyto'), {}, 10, 0), []);
  });
});
