import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDeck, type ApiResponse, buildForSuite } from '../../helpers/server.ts';

function assertError(res: ApiResponse, status: number, code: string, field?: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
  if (field !== undefined) assert.equal(res.body.error.details.field, field, res.text);
}

const ids = (res: ApiResponse, key = 'items'): string[] => res.body[key].map((d: { id: string }) => d.id);

describe('search: GET /decks?q=&tag= and GET /search?q=', () => {
  const suite = buildForSuite();

  async function importDeck(token: string, deck: Record<string, unknown>, cards: { front: string; back: string }[]): Promise<string> {
    const res = await suite.server.api('POST', '/decks/import', { token, json: { deck: { lang: 'en', ...deck }, cards } });
    assert.equal(res.status, 201, res.text);
    return res.body.deckId as string;
  }

  test('should find decks by title, description, tags and card text, case and accents ignored', async () => {
    const { token } = await suite.server.user();
    const byTitle = await importDeck(token, { title: 'Capitals of Europe' }, [{ front: 'France', back: 'Paris' }]);
    const byDescription = await importDeck(token, { title: 'Rivers', description: 'The longest rivers of Europe' }, [{ front: 'Danube', back: 'Black Sea' }]);
    const byTag = await importDeck(token, { title: 'Mountains', tags: ['Geography', 'Europe trip'] }, [{ front: 'Mont Blanc', back: '4808 m' }]);
    const byCard = await importDeck(token, { title: 'Verbs' }, [{ front: 'être', back: 'to be' }, { front: 'avoir', back: 'to have' }]);
    await importDeck(token, { title: 'Unrelated' }, [{ front: 'x', back: 'y' }]);

    assert.deepEqual(new Set(ids(await suite.server.api('GET', '/decks?q=europe', { token }))), new Set([byTitle, byDescription, byTag]));
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?q=ETRE', { token })), [byCard]);
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?q=to%20have', { token })), [byCard]);
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?q=europe%20longest', { token })), [byDescription], 'every word must match');
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?q=nowhere', { token })), []);
  });

  test('should rank a deck that mentions the words more often first', async () => {
    const { token } = await suite.server.user();
    const weak = await importDeck(token, { title: 'Some words' }, [{ front: 'kangaroo once', back: 'plus many other words in a long sentence about nothing at all' }]);
    const strong = await importDeck(token, { title: 'Kangaroo facts' }, [{ front: 'kangaroo', back: 'kangaroo kangaroo' }]);
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?q=kangaroo', { token })), [strong, weak]);
  });

  test('should filter by tag exactly and case-insensitively, alone and with q', async () => {
    const { token } = await suite.server.user();
    const math = await importDeck(token, { title: 'Algebra', tags: ['Math'] }, [{ front: 'x+1', back: 'y' }]);
    await importDeck(token, { title: 'Algebra too', tags: ['Mathematics'] }, [{ front: 'x', back: 'y' }]);
    const both = await importDeck(token, { title: 'Geometry', tags: ['math', 'shapes'] }, [{ front: 'triangle', back: 'three sides' }]);
    assert.deepEqual(new Set(ids(await suite.server.api('GET', '/decks?tag=MATH', { token }))), new Set([math, both]));
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?tag=math&q=triangle', { token })), [both]);
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?tag=math&q=algebra', { token })), [math]);
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?tag=mat', { token })), []);
  });

  test('should return matching cards with their deck, order, front and back from GET /search', async () => {
    const { token } = await suite.server.user();
    const deckId = await importDeck(token, { title: 'Chemistry' }, [
      { front: 'Symbol of gold', back: 'Au' }, { front: 'Symbol of silver', back: 'Ag' }, { front: 'Water', back: 'H2O' },
    ]);
    const res = await suite.server.api('GET', '/search?q=symbol%20silver', { token });
    assert.equal(res.status, 200, res.text);
    const cardId = (await suite.server.api('GET', `/decks/${deckId}`, { token })).body.cards[1].id;
    assert.deepEqual(res.body, { results: [{ deckId, deckTitle: 'Chemistry', cardId, order: 1, front: 'Symbol of silver', back: 'Ag' }], nextToken: null });
    assert.equal((await suite.server.api('GET', '/search?q=symbol', { token })).body.results.length, 2);
    assert.equal((await suite.server.api('GET', '/search?q=chemistry', { token })).body.results.length, 0, 'a deck title is not card text');
  });

  test("should never find, list or search another user's decks and cards", async () => {
    const owner = await suite.server.user();
    const other = await suite.server.user();
    await importDeck(owner.token, { title: 'Secret zebra deck', tags: ['zebra'], visibility: 'public' }, [{ front: 'zebra stripes', back: 'black and white' }]);
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?q=zebra', { token: other.token })), []);
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?tag=zebra', { token: other.token })), []);
    assert.deepEqual((await suite.server.api('GET', '/search?q=zebra', { token: other.token })).body.results, []);
    assert.equal((await suite.server.api('GET', '/search?q=zebra', { token: owner.token })).body.results.length, 1);
  });

  test('should treat search input as data: quotes, FTS5 and tsquery operators are plain words', async () => {
    const { token } = await suite.server.user();
    const deckId = await importDeck(token, { title: 'Operators' }, [
      { front: 'near and or not', back: 'plain words' }, { front: 'col: title', back: 'x & y | z ! w' },
    ]);
    for (const q of ['"'.repeat(200), 'NEAR(', 'NEAR(a b', 'a OR b', 'foo*', 'title:x', "' & | ! :* <-> ( )", '{owner} : x', '^near', '-', "'; drop table decks; --"]) {
      const decks = await suite.server.api('GET', `/decks?q=${encodeURIComponent(q)}`, { token });
      assert.equal(decks.status, 200, `${q}: ${decks.text}`);
      const cards = await suite.server.api('GET', `/search?q=${encodeURIComponent(q)}`, { token });
      assert.equal(cards.status, 200, `${q}: ${cards.text}`);
    }
    assert.deepEqual(ids(await suite.server.api('GET', `/decks?q=${encodeURIComponent('NEAR(')}`, { token })), [deckId]);
    assert.deepEqual(ids(await suite.server.api('GET', `/decks?q=${encodeURIComponent('"near" AND "or"')}`, { token })), [deckId]);
    assert.equal((await suite.server.api('GET', `/search?q=${encodeURIComponent('col: x & y')}`, { token })).body.results.length, 1);
    assert.equal((await suite.server.api('GET', `/search?q=${encodeURIComponent('"'.repeat(200))}`, { token })).body.results.length, 0, 'no word, no match');
  });

  test('should refuse an empty q, a q over 200 characters and a foreign continuation token with the envelope', async () => {
    const { token } = await suite.server.user();
    assertError(await suite.server.api('GET', '/search?q=', { token }), 400, 'BAD_REQUEST', 'q');
    assertError(await suite.server.api('GET', '/search', { token }), 400, 'BAD_REQUEST', 'q');
    assertError(await suite.server.api('GET', `/search?q=${'a'.repeat(201)}`, { token }), 400, 'BAD_REQUEST', 'q');
    assertError(await suite.server.api('GET', `/decks?q=${'a'.repeat(201)}`, { token }), 400, 'BAD_REQUEST', 'q');
    assert.equal((await suite.server.api('GET', `/decks?q=${'a'.repeat(200)}`, { token })).status, 200);
    assertError(await suite.server.api('GET', '/decks?q=x&token=nonsense', { token }), 400, 'BAD_REQUEST', 'token');
    for (let i = 0; i < 3; i++) await createDeck(suite.server, token, 2, `Paged deck ${i}`);
    const first = await suite.server.api('GET', '/decks?q=paged&limit=2', { token });
    assert.equal(first.body.items.length, 2);
    assertError(await suite.server.api('GET', `/decks?q=other&token=${encodeURIComponent(first.body.nextToken)}`, { token }), 400, 'BAD_REQUEST', 'token');
    const second = await suite.server.api('GET', `/decks?q=paged&limit=2&token=${encodeURIComponent(first.body.nextToken)}`, { token });
    assert.equal(second.body.items.length, 1);
    assert.equal(second.body.nextToken, null);
    assert.equal(new Set([...ids(first), ...ids(second)]).size, 3);
    const cards = await suite.server.api('GET', '/search?q=question&limit=4', { token });
    const rest = await suite.server.api('GET', `/search?q=question&limit=4&token=${encodeURIComponent(cards.body.nextToken)}`, { token });
    assert.equal((cards.body.results as unknown[]).length + (rest.body.results as unknown[]).length, 6);
  });

  test('should keep the index in step with deck and card updates, appends and update imports', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 2, 'Old title');
    assert.equal((await suite.server.api('PATCH', `/decks/${deckId}`, { token, json: { title: 'Fresh heading', tags: ['newtag'] } })).status, 200);
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?q=old', { token })), []);
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?q=heading', { token })), [deckId]);
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?tag=NewTag', { token })), [deckId]);
    const cardId = (await suite.server.api('GET', `/decks/${deckId}`, { token })).body.cards[0].id;
    assert.equal((await suite.server.api('PATCH', `/decks/${deckId}/cards/${cardId}`, { token, json: { front: 'platypus' } })).status, 200);
    assert.deepEqual((await suite.server.api('GET', '/search?q=platypus', { token })).body.results.map((r: { cardId: string }) => r.cardId), [cardId]);
    assert.equal((await suite.server.api('POST', `/decks/${deckId}/cards`, { token, json: { cards: [{ front: 'wombat', back: 'marsupial' }] } })).status, 200);
    assert.equal((await suite.server.api('GET', '/search?q=wombat', { token })).body.results.length, 1);
    const update = await suite.server.api('POST', `/decks/import?mode=update&targetDeckId=${deckId}`, { token, json: { deck: { title: 'Replaced', lang: 'en' }, cards: [{ front: 'echidna', back: 'spiny' }] } });
    assert.equal(update.status, 200, update.text);
    assert.equal((await suite.server.api('GET', '/search?q=wombat', { token })).body.results.length, 0);
    assert.equal((await suite.server.api('GET', '/search?q=platypus', { token })).body.results.length, 0);
    assert.equal((await suite.server.api('GET', '/search?q=echidna', { token })).body.results.length, 1);
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?q=replaced', { token })), [deckId]);
    assert.deepEqual(ids(await suite.server.api('GET', '/decks?tag=newtag', { token })), [], 'the update import replaced the tags');
  });
});
