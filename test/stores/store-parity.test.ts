// What PostgreSQL would do differently from SQLite if left alone, pinned on whichever store this
// run uses: text PostgreSQL's text type refuses (U+0000), and text ordering by collation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { onPostgres, schemaForDataDir } from '../helpers/backend.ts';
import { buildForSuite } from '../helpers/server.ts';

describe('the same bytes on both stores', () => {
  const suite = buildForSuite();

  test('should store and return text holding U+0000 and U+FFFF exactly', async () => {
    const odd = 'a\u0000b\uFFFF0c\uFFFF1\u0000';
    const created = await suite.server.api('POST', '/decks/import', {
      token: suite.user.token,
      json: { deck: { title: `T${odd}`, description: odd, lang: 'en', tags: [`t${odd}`] }, cards: [{ front: odd, back: `\u0000${odd}` }] },
    });
    assert.equal(created.status, 201, created.text);
    const deck = await suite.server.api('GET', `/decks/${created.body.deckId}`, { token: suite.user.token });
    assert.equal(deck.body.title, `T${odd}`);
    assert.equal(deck.body.description, odd);
    assert.deepEqual(deck.body.tags, [`t${odd}`]);
    assert.equal(deck.body.cards[0].front, odd);
    assert.equal(deck.body.cards[0].back, `\u0000${odd}`);
    const patched = await suite.server.api('PATCH', `/decks/${created.body.deckId}`, { token: suite.user.token, json: { title: `\u0000${odd}` } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.title, `\u0000${odd}`);
    const listed = await suite.server.api('GET', '/decks', { token: suite.user.token });
    assert.equal(listed.body.items.find((d: { id: string }) => d.id === created.body.deckId)?.title, `\u0000${odd}`);
  });

  test('should order decks by updatedAt then id in byte order', async () => {
    const { token } = await suite.server.user();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await suite.server.api('POST', '/decks/import', { token, json: { deck: { title: `d${i}`, lang: 'en' }, cards: [{ front: 'f', back: 'b' }] } });
      ids.push(res.body.deckId);
    }
    const listed = await suite.server.api('GET', '/decks?limit=100', { token });
    const got = listed.body.items.map((d: { id: string; updatedAt: string }) => `${d.updatedAt} ${d.id}`);
    const bytes = (s: string) => Buffer.from(s, 'utf8');
    assert.deepEqual(got, [...got].sort((a, b) => Buffer.compare(bytes(b), bytes(a))));
    assert.equal(got.length, ids.length);
  });

  test('should collate every text column of the PostgreSQL schema as "C", like SQLite', { skip: onPostgres() ? false : 'inspects the PostgreSQL schema: runs in the postgres-redis pass' }, async () => {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ column: string; collation: string | null }>(
        `select table_name || '.' || column_name as column, collation_name as collation from information_schema.columns
         where table_schema = $1 and data_type = 'text' and table_name not like 'kysely_%'`,
        [schemaForDataDir(suite.server.dataDir)],
      );
      assert.ok(rows.length > 20, 'the schema has its text columns');
      assert.deepEqual(rows.filter((r) => r.collation !== 'C').map((r) => r.column), []);
    } finally {
      await client.end();
    }
  });
});
