// Every limit of the spec's Limits table, at its bound (accepted) and one past it (refused).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createDeck, deckBody, type ApiResponse, buildForSuite } from '../../helpers/server.ts';

const s = (n: number, c = 'x') => c.repeat(n);
const url = (length: number) => { const head = 'https://img.example.com/'; return head + s(length - head.length, 'a'); };
const list = (n: number, width = 5) => Array.from({ length: n }, (_, i) => String(i).padStart(width, 't'));

function get(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], value);
}

function assertSchemaInvalid(res: ApiResponse, field: string, label: string): void {
  assert.equal(res.status, 400, `${label}: ${res.text}`);
  assert.equal(res.body.error.code, 'SCHEMA_INVALID', label);
  assert.equal(res.body.error.details.field, field, label);
}

interface LimitCase { name: string; path: string; atBound: unknown; past: unknown; field?: string }

const DECK_CASES: LimitCase[] = [
  { name: 'title 200/201', path: 'title', atBound: s(200), past: s(201) },
  { name: 'title 1/0 chars', path: 'title', atBound: 'T', past: '' },
  { name: 'description 5000/5001', path: 'description', atBound: s(5000), past: s(5001) },
  { name: 'tags 20/21 items', path: 'tags', atBound: list(20), past: list(21) },
  { name: 'tags 40/41 chars', path: 'tags', atBound: [s(40)], past: [s(41)], field: 'tags[0]' },
  { name: 'thumbnail 2048/2049', path: 'thumbnail', atBound: url(2048), past: url(2049) },
  { name: 'thumbnail http', path: 'thumbnail', atBound: 'https://img.example.com/t.png', past: 'http://img.example.com/t.png' },
  { name: 'thumbnail data URL', path: 'thumbnail', atBound: 'https://img.example.com/t.png', past: 'data:image/png;base64,AAAA' },
];

// Each case is a partial card; `path` is where the limited value sits in the card.
const CARD_CASES: LimitCase[] = [
  { name: 'front 4000/4001', path: 'front', atBound: s(4000), past: s(4001) },
  { name: 'back 4000/4001', path: 'back', atBound: s(4000), past: s(4001) },
  { name: 'extras.info 1000/1001', path: 'extras.info', atBound: s(1000), past: s(1001) },
  { name: 'extras.prompt 200/201', path: 'extras.prompt', atBound: s(200), past: s(201) },
  { name: 'extras.subject 60/61', path: 'extras.subject', atBound: s(60), past: s(61) },
  { name: 'extras.topic 80/81', path: 'extras.topic', atBound: s(80), past: s(81) },
  { name: 'extras.tags 10/11 items', path: 'extras.tags', atBound: list(10), past: list(11) },
  { name: 'extras.tags 30/31 chars', path: 'extras.tags', atBound: [s(30)], past: [s(31)], field: 'extras.tags[0]' },
  { name: 'frontMedia.imageUrl 2048/2049', path: 'frontMedia.imageUrl', atBound: url(2048), past: url(2049) },
  { name: 'backMedia.imageUrl 2048/2049', path: 'backMedia.imageUrl', atBound: url(2048), past: url(2049) },
  { name: 'frontMedia.imageAlt 500/501', path: 'frontMedia.imageAlt', atBound: s(500), past: s(501) },
];

function cardWith(path: string, value: unknown): Record<string, unknown> {
  const card: Record<string, unknown> = path === 'front' ? {} : { front: 'Question' };
  const [head, tail] = path.split('.') as [string, string | undefined];
  card[head] = tail === undefined ? value : { [tail]: value };
  return card;
}

describe('limits', () => {
  let token: string;
  const suite = buildForSuite();
  before(async () => {
    token = (await suite.server.user({ email: 'limits@example.com' })).token;
  });

  const deckOf = async (deckId: string) => (await suite.server.api('GET', `/decks/${deckId}`, { token })).body;

  for (const c of DECK_CASES) {
    test(`should hold deck ${c.name} on import`, async () => {
      const body = (value: unknown) => ({ deck: { title: 'T', lang: 'en', [c.path]: value }, cards: [{ front: 'q' }] });
      const ok = await suite.server.api('POST', '/decks/import', { token, json: body(c.atBound) });
      assert.equal(ok.status, 201, ok.text);
      assert.deepEqual((await deckOf(ok.body.deckId))[c.path], c.atBound);
      assertSchemaInvalid(await suite.server.api('POST', '/decks/import', { token, json: body(c.past) }), `deck.${c.field ?? c.path}`, c.name);
    });

    test(`should hold deck ${c.name} on PATCH`, async () => {
      const { deckId } = await createDeck(suite.server, token, 1);
      const ok = await suite.server.api('PATCH', `/decks/${deckId}`, { token, json: { [c.path]: c.atBound } });
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual(ok.body[c.path], c.atBound);
      assertSchemaInvalid(await suite.server.api('PATCH', `/decks/${deckId}`, { token, json: { [c.path]: c.past } }), c.field ?? c.path, c.name);
      assert.deepEqual((await deckOf(deckId))[c.path], c.atBound);
    });
  }

  for (const c of CARD_CASES) {
    test(`should hold card ${c.name} on import, append and card PATCH`, async () => {
      const ok = await suite.server.api('POST', '/decks/import', { token, json: { deck: { title: 'T', lang: 'en' }, cards: [cardWith(c.path, c.atBound)] } });
      assert.equal(ok.status, 201, ok.text);
      const deck = await deckOf(ok.body.deckId);
      assert.deepEqual(get(deck.cards[0], c.path), c.atBound);
      const past = await suite.server.api('POST', '/decks/import', { token, json: { deck: { title: 'T', lang: 'en' }, cards: [{ front: 'q' }, cardWith(c.path, c.past)] } });
      assertSchemaInvalid(past, `cards[1].${c.field ?? c.path}`, c.name);

      const appended = await suite.server.api('POST', `/decks/${deck.id}/cards`, { token, json: { cards: [cardWith(c.path, c.atBound)] } });
      assert.equal(appended.status, 200, appended.text);
      assert.deepEqual(get(appended.body.cards[0], c.path), c.atBound);
      const appendPast = await suite.server.api('POST', `/decks/${deck.id}/cards`, { token, json: { cards: [cardWith(c.path, c.past)] } });
      assertSchemaInvalid(appendPast, `cards[0].${c.field ?? c.path}`, c.name);

      const cardPath = `/decks/${deck.id}/cards/${deck.cards[0].id}`;
      const patchPast = await suite.server.api('PATCH', cardPath, { token, json: cardWith(c.path, c.past) });
      assertSchemaInvalid(patchPast, c.field ?? c.path, c.name);
      const patched = await suite.server.api('PATCH', cardPath, { token, json: cardWith(c.path, c.atBound) });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(get(patched.body, c.path), c.atBound);
      assert.equal((await deckOf(deck.id)).cardCount, 2);
    });
  }

  test('should accept page sizes 1 and 100 and refuse 0 and 101', async () => {
    for (let i = 0; i < 2; i++) await createDeck(suite.server, token, 1);
    const one = await suite.server.api('GET', '/decks?limit=1', { token });
    assert.equal(one.status, 200);
    assert.equal(one.body.items.length, 1);
    assert.equal((await suite.server.api('GET', '/decks?limit=100', { token })).status, 200);
    for (const limit of [0, 101]) {
      const res = await suite.server.api('GET', `/decks?limit=${limit}`, { token });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'BAD_REQUEST');
    }
  });

  test('should accept Idempotency-Keys of 8 and 128 characters and refuse 7 and 129', async () => {
    const { deckId } = await createDeck(suite.server, token, 1);
    for (const key of [s(8, 'a'), s(128, 'b')]) {
      const imported = await suite.server.api('POST', '/decks/import', { token, headers: { 'idempotency-key': key }, json: deckBody(1) });
      assert.equal(imported.status, 201, imported.text);
      assert.equal(imported.body.idempotencyKey, key);
      const appended = await suite.server.api('POST', `/decks/${deckId}/cards`, { token, headers: { 'idempotency-key': key }, json: { cards: [{ front: 'q' }] } });
      assert.equal(appended.status, 200, appended.text);
    }
    for (const key of [s(7, 'c'), s(129, 'd')]) {
      for (const path of ['/decks/import', `/decks/${deckId}/cards`]) {
        const res = await suite.server.api('POST', path, { token, headers: { 'idempotency-key': key }, json: path === '/decks/import' ? deckBody(1) : { cards: [{ front: 'q' }] } });
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.error.code, 'BAD_REQUEST');
      }
    }
  });

  test('should refuse 0 cards in an import or append with SCHEMA_INVALID', async () => {
    assertSchemaInvalid(await suite.server.api('POST', '/decks/import', { token, json: { deck: { title: 'T' }, cards: [] } }), 'cards', 'import 0');
    const { deckId } = await createDeck(suite.server, token, 1);
    assertSchemaInvalid(await suite.server.api('POST', `/decks/${deckId}/cards`, { token, json: { cards: [] } }), 'cards', 'append 0');
  });

  test('should import 250 cards and refuse to append a 251st with TOO_MANY_CARDS', async () => {
    const full = await suite.server.api('POST', '/decks/import', { token, json: deckBody(250) });
    assert.equal(full.status, 201, full.text);
    assert.equal(full.body.cardCount, 250);
    const deckId = full.body.deckId;
    const deck = await deckOf(deckId);
    assert.equal(deck.cards.length, 250);
    const res = await suite.server.api('POST', `/decks/${deckId}/cards`, { token, json: { cards: [{ front: 'one more' }] } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'TOO_MANY_CARDS');
    const after = await deckOf(deckId);
    assert.equal(after.cardCount, 250);
    assert.equal(after.version, deck.version);
    const update = await suite.server.api('POST', `/decks/import?mode=update&targetDeckId=${deckId}`, { token, json: deckBody(250, 'Still full') });
    assert.equal(update.status, 200, update.text);
  });

  test('should append up to exactly 250 cards in total and no further', async () => {
    const { deckId } = await createDeck(suite.server, token, 1);
    const cards = (n: number) => Array.from({ length: n }, (_, i) => ({ front: `Appended ${i}` }));
    const over = await suite.server.api('POST', `/decks/${deckId}/cards`, { token, json: { cards: cards(250) } });
    assert.equal(over.body.error.code, 'TOO_MANY_CARDS');
    const filled = await suite.server.api('POST', `/decks/${deckId}/cards`, { token, json: { cards: cards(249) } });
    assert.equal(filled.status, 200, filled.text);
    assert.equal(filled.body.cardCount, 250);
    assert.equal(filled.body.cards.at(-1).order, 249);
    const past = await suite.server.api('POST', `/decks/${deckId}/cards`, { token, json: { cards: cards(1) } });
    assert.equal(past.status, 400);
    assert.equal(past.body.error.code, 'TOO_MANY_CARDS');
    assert.equal((await deckOf(deckId)).cards.length, 250);
  });
});
