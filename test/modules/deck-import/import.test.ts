import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDeck, deckBody, type ApiResponse, manualClock, buildForSuite } from '../../helpers/server.ts';

const PUBLIC_URL = 'https://flash.example.com';

function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

const MARKDOWN = `---
version: 1
lang: en
visibility: unlisted
---
# Cell biology

## Front
What is the powerhouse of the cell?

## Back
The **mitochondrion**.

---

## Front
Where is DNA kept?

## Back
In the nucleus.
`;

const EQUIVALENT_JSON = {
  deck: { title: 'Cell biology', lang: 'en', visibility: 'unlisted' },
  cards: [
    { front: 'What is the powerhouse of the cell?', back: 'The **mitochondrion**.' },
    { front: 'Where is DNA kept?', back: 'In the nucleus.' },
  ],
};

const withoutIds = (deck: { cards: { id?: string }[] }) => deck.cards.map(({ id: _id, ...card }) => card);

describe('POST /decks/import', () => {
  const time = manualClock('2030-08-01T08:00:00.000Z');
  const suite = buildForSuite({ env: { PUBLIC_URL }, overrides: { clock: time.clock } });

  const markdown = (body: string, query = '', headers: Record<string, string> = {}) =>
    suite.server.api('POST', `/decks/import${query}`, { token: suite.user.token, body, headers: { 'content-type': 'text/markdown', ...headers } });
  const deckOf = async (deckId: string) => (await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body;
  const deckCount = async () => (await suite.server.api('GET', '/decks?limit=100', { token: suite.user.token })).body.items.length as number;

  test('should create a deck from JSON with 201 and an ImportResult', async () => {
    const res = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: deckBody(3, 'Imported') });
    assert.equal(res.status, 201);
    assert.match(res.body.deckId, /^dck_/);
    assert.equal(res.body.mode, 'create');
    assert.equal(res.body.cardCount, 3);
    assert.equal(res.body.title, 'Imported');
    assert.equal(res.body.visibility, 'private');
    assert.equal(res.body.previewUrl, `${PUBLIC_URL}/decks/${res.body.deckId}`);
    assert.equal(res.body.editUrl, `${PUBLIC_URL}/decks/${res.body.deckId}/edit`);
    assert.equal(res.body.version, new Date(time.ms).toISOString());
    assert.equal(res.body.idempotencyKey, undefined);
    const deck = await deckOf(res.body.deckId);
    assert.equal(deck.version, res.body.version);
    assert.deepEqual(deck.cards.map((c: { back: string }) => c.back), ['Answer 1', 'Answer 2', 'Answer 3']);
  });

  test('should give the same deck from markdown as from the equivalent JSON', async () => {
    const fromMarkdown = await markdown(MARKDOWN);
    assert.equal(fromMarkdown.status, 201, fromMarkdown.text);
    assert.equal(fromMarkdown.body.visibility, 'unlisted');
    const fromJson = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: EQUIVALENT_JSON });
    assert.equal(fromJson.status, 201);
    const a = await deckOf(fromMarkdown.body.deckId);
    const b = await deckOf(fromJson.body.deckId);
    assert.deepEqual(withoutIds(a), withoutIds(b));
    for (const key of ['title', 'lang', 'visibility', 'tags', 'description', 'thumbnail', 'cardCount']) assert.deepEqual(a[key], b[key], key);
  });

  test('should create another deck when a create is repeated without an Idempotency-Key', async () => {
    const before = await deckCount();
    const first = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: deckBody(1, 'Twice') });
    const second = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: deckBody(1, 'Twice') });
    assert.notEqual(first.body.deckId, second.body.deckId);
    assert.equal(await deckCount(), before + 2);
  });

  test('should replay a create with the same Idempotency-Key and body, and refuse a different body with 409', async () => {
    const before = await deckCount();
    const headers = { 'idempotency-key': 'import-create-0001' };
    const first = await suite.server.api('POST', '/decks/import', { token: suite.user.token, headers, json: deckBody(2, 'Once') });
    assert.equal(first.status, 201);
    assert.equal(first.body.idempotencyKey, 'import-create-0001');
    const replay = await suite.server.api('POST', '/decks/import', { token: suite.user.token, headers, json: deckBody(2, 'Once') });
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.text, first.text);
    assertError(await suite.server.api('POST', '/decks/import', { token: suite.user.token, headers, json: deckBody(2, 'Other') }), 409, 'IDEMPOTENCY_CONFLICT');
    assertError(await markdown(MARKDOWN, '', headers), 409, 'IDEMPOTENCY_CONFLICT');
    assert.equal(await deckCount(), before + 1);
  });

  test('should replace the cards and metadata of the target deck with mode=update (200)', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 3, 'Before');
    time.ms += 1000;
    const res = await suite.server.api('POST', `/decks/import?mode=update&targetDeckId=${deckId}`, {
      token: suite.user.token, json: { deck: { title: 'After', lang: 'de', visibility: 'public', tags: ['x'] }, cards: [{ front: 'Only', back: 'card' }] },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.mode, 'update');
    assert.equal(res.body.deckId, deckId);
    assert.equal(res.body.cardCount, 1);
    assert.equal(res.body.visibility, 'public');
    assert.equal(res.body.version, new Date(time.ms).toISOString());
    const deck = await deckOf(deckId);
    assert.equal(deck.title, 'After');
    assert.equal(deck.lang, 'de');
    assert.deepEqual(deck.tags, ['x']);
    assert.deepEqual(deck.cards.map((c: { front: string }) => c.front), ['Only']);
  });

  test('should keep the ids of content-matching cards on mode=update, and leave version unchanged on a repeat', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 3, 'Keep');
    const before = await deckOf(deckId);
    const [q1, q2, q3] = before.cards as { id: string; front: string }[];
    const payload = { deck: { title: 'Keep', lang: 'en' }, cards: [{ front: 'Question 3', back: 'Answer 3' }, { front: 'Brand new', back: 'x' }, { front: 'Question 1', back: 'Answer 1' }] };
    time.ms += 1000;
    const first = await suite.server.api('POST', `/decks/import?mode=update&targetDeckId=${deckId}`, { token: suite.user.token, json: payload });
    assert.equal(first.status, 200);
    const after = await deckOf(deckId);
    assert.equal(after.cards[0].id, q3.id);
    assert.equal(after.cards[2].id, q1.id);
    assert.ok(![q1.id, q2.id, q3.id].includes(after.cards[1].id));
    assert.deepEqual(after.cards.map((c: { order: number }) => c.order), [0, 1, 2]);

    time.ms += 1000;
    const repeat = await suite.server.api('POST', `/decks/import?mode=update&targetDeckId=${deckId}`, { token: suite.user.token, json: payload });
    assert.equal(repeat.status, 200);
    assert.equal(repeat.body.version, first.body.version);
    const again = await deckOf(deckId);
    assert.equal(again.version, first.body.version);
    assert.deepEqual(again.cards, after.cards);
  });

  test('should give equal cards on mode=update the ids of the equal cards in deck order, and new ids to the extra ones', async () => {
    const same = { front: 'Same', back: 'Same' };
    const created = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: { deck: { title: 'Equal', lang: 'en' }, cards: [same, { front: 'Other', back: 'x' }, same] } });
    assert.equal(created.status, 201, created.text);
    const deckId = created.body.deckId as string;
    const before = (await deckOf(deckId)).cards as { id: string }[];
    time.ms += 1000;
    const res = await suite.server.api('POST', `/decks/import?mode=update&targetDeckId=${deckId}`, { token: suite.user.token, json: { deck: { title: 'Equal', lang: 'en' }, cards: [same, same, same] } });
    assert.equal(res.status, 200, res.text);
    const after = (await deckOf(deckId)).cards as { id: string }[];
    assert.equal(after[0]?.id, before[0]?.id);
    assert.equal(after[1]?.id, before[2]?.id);
    assert.ok(!before.some((c) => c.id === after[2]?.id));
  });

  test('should update from markdown too', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    const res = await markdown(MARKDOWN, `?mode=update&targetDeckId=${deckId}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.cardCount, 2);
    assert.equal((await deckOf(deckId)).title, 'Cell biology');
  });

  test('should answer 400 BAD_REQUEST for mode=update without targetDeckId, and for an unknown mode', async () => {
    const missing = await suite.server.api('POST', '/decks/import?mode=update', { token: suite.user.token, json: deckBody(1) });
    assertError(missing, 400, 'BAD_REQUEST');
    assert.equal(missing.body.error.details.field, 'targetDeckId');
    const mode = await suite.server.api('POST', '/decks/import?mode=replace', { token: suite.user.token, json: deckBody(1) });
    assertError(mode, 400, 'BAD_REQUEST');
    assert.equal(mode.body.error.details.field, 'mode');
  });

  test('should answer 404 DECK_NOT_FOUND for an unknown targetDeckId', async () => {
    assertError(await suite.server.api('POST', '/decks/import?mode=update&targetDeckId=dck_nope', { token: suite.user.token, json: deckBody(1) }), 404, 'DECK_NOT_FOUND');
  });

  test('should answer 412 VERSION_MISMATCH for a stale If-Match on mode=update and accept the current version quoted or not', async () => {
    const { deckId, version } = await createDeck(suite.server, suite.user.token, 1);
    const path = `/decks/import?mode=update&targetDeckId=${deckId}`;
    time.ms += 1000;
    const first = await suite.server.api('POST', path, { token: suite.user.token, headers: { 'if-match': version }, json: deckBody(2, 'v2') });
    assert.equal(first.status, 200);
    assertError(await suite.server.api('POST', path, { token: suite.user.token, headers: { 'if-match': version }, json: deckBody(3, 'lost') }), 412, 'VERSION_MISMATCH');
    time.ms += 1000;
    const quoted = await suite.server.api('POST', path, { token: suite.user.token, headers: { 'if-match': `"${first.body.version}"` }, json: deckBody(3, 'v3') });
    assert.equal(quoted.status, 200, quoted.text);
    time.ms += 1000;
    const bare = await suite.server.api('POST', path, { token: suite.user.token, headers: { 'if-match': quoted.body.version }, json: deckBody(4, 'v4') });
    assert.equal(bare.status, 200, bare.text);
    assert.equal((await deckOf(deckId)).title, 'v4');
  });

  test('should answer 415 UNSUPPORTED_MEDIA_TYPE for other content types', async () => {
    const before = await deckCount();
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'text/html']) {
      const res = await suite.server.api('POST', '/decks/import', { token: suite.user.token, body: MARKDOWN, headers: { 'content-type': type } });
      assertError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    assert.equal(await deckCount(), before);
  });

  test('should answer 400 BAD_REQUEST for malformed JSON and empty bodies', async () => {
    assertError(await suite.server.api('POST', '/decks/import', { token: suite.user.token, body: '{"deck": {', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
    assertError(await suite.server.api('POST', '/decks/import', { token: suite.user.token, body: '', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
    assertError(await suite.server.api('POST', '/decks/import', { token: suite.user.token }), 400, 'BAD_REQUEST');
    assertError(await markdown(''), 400, 'BAD_REQUEST');
  });

  test('should answer 400 PARSE_FAILED with details.line for unparseable markdown', async () => {
    const cases: [string, number][] = [
      ['# Title\n\n## Front\nq\n', 1],
      ['\n\nNo front matter\n', 3],
      ['---\nversion: 1\nlang: en\n# T\n\n## Front\nq\n', 1],
      ['---\nversion: 1\nlang: [en\n---\n# T\n\n## Front\nq\n', 3],
      ['---\nversion: 1\nlang: en\n---\n# T\n\n## Front\nq\n\n---\nstray text\n', 11],
    ];
    for (const [text, line] of cases) {
      const res = await markdown(text);
      assertError(res, 400, 'PARSE_FAILED');
      assert.equal(res.body.error.details.line, line, text);
    }
  });

  test('should answer 400 SCHEMA_INVALID for markdown whose fields break the rules', async () => {
    const res = await markdown('---\nversion: 1\nlang: en\nvisibility: secret\n---\n# T\n\n## Front\nq\n');
    assertError(res, 400, 'SCHEMA_INVALID');
    assert.equal(res.body.error.details.field, 'deck.visibility');
  });

  test('should answer 400 SCHEMA_INVALID naming cards[3].frontMedia.imageUrl for a disallowed image URL', async () => {
    const before = await deckCount();
    for (const url of ['http://img.example.com/a.png', 'javascript:alert(1)', 'data:image/png;base64,AAAA', '//evil.example.com/a.png', 'vbscript:msgbox', 'file:///etc/passwd', 'ftp://x.example/a.png', 'img/a.png']) {
      const body = deckBody(5);
      (body.cards[3] as Record<string, unknown>).frontMedia = { imageUrl: url, imageAlt: 'a' };
      const res = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: body });
      assertError(res, 400, 'SCHEMA_INVALID');
      assert.equal(res.body.error.details.field, 'cards[3].frontMedia.imageUrl', url);
    }
    assert.equal(await deckCount(), before);
  });

  test('should accept https image URLs and root-relative paths', async () => {
    const body = deckBody(2);
    Object.assign(body.cards[0], { frontMedia: { imageUrl: 'https://img.example.com/a.png', imageAlt: 'A cell' } });
    Object.assign(body.cards[1], { backMedia: { imageUrl: '/media/b.png' } });
    const res = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: body });
    assert.equal(res.status, 201, res.text);
    const deck = await deckOf(res.body.deckId);
    assert.deepEqual(deck.cards[0].frontMedia, { imageUrl: 'https://img.example.com/a.png', imageAlt: 'A cell' });
    assert.deepEqual(deck.cards[1].backMedia, { imageUrl: '/media/b.png' });
  });

  test('should answer 400 SCHEMA_INVALID naming the missing or unknown field', async () => {
    const cases: [unknown, string][] = [
      [{ cards: [{ front: 'q' }] }, 'deck'],
      [{ deck: { title: 'T' } }, 'cards'],
      [{ deck: { lang: 'en' }, cards: [{ front: 'q' }] }, 'deck.title'],
      [{ deck: { title: 'T', owner: 'me' }, cards: [{ front: 'q' }] }, 'deck.owner'],
      [{ deck: { title: 'T' }, cards: [{ front: 'q' }, { front: '', back: ' ' }] }, 'cards[1]'],
      [{ deck: { title: 'T' }, cards: [] }, 'cards'],
    ];
    for (const [json, field] of cases) {
      const res = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json });
      assertError(res, 400, 'SCHEMA_INVALID');
      assert.equal(res.body.error.details.field, field, JSON.stringify(json));
    }
  });

  test('should answer 400 TOO_MANY_CARDS for 251 cards in JSON or markdown', async () => {
    const before = await deckCount();
    assertError(await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: deckBody(251) }), 400, 'TOO_MANY_CARDS');
    const cardsMd = Array.from({ length: 251 }, (_, i) => `## Front\nq${i}\n\n## Back\na${i}`).join('\n\n---\n\n');
    assertError(await markdown(`---\nversion: 1\nlang: en\n---\n# Big\n\n${cardsMd}\n`), 400, 'TOO_MANY_CARDS');
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    assertError(await suite.server.api('POST', `/decks/import?mode=update&targetDeckId=${deckId}`, { token: suite.user.token, json: deckBody(251) }), 400, 'TOO_MANY_CARDS');
    assert.equal(await deckCount(), before + 1);
  });

  test('should refuse a key named __proto__ at any depth, in JSON and in markdown alike', async () => {
    const before = await deckCount();
    const json = '{"deck":{"title":"T"},"cards":[{"front":"q","back":"a","extras":{"templateData":{"a":{"__proto__":{"x":1}}}}}]}';
    const viaJson = await suite.server.api('POST', '/decks/import', { token: suite.user.token, body: json, headers: { 'content-type': 'application/json' } });
    assertError(viaJson, 400, 'BAD_REQUEST');
    assert.match(viaJson.body.error.message, /__proto__/);
    const doc = '---\nversion: 1\nlang: en\n---\n# T\n\n<!-- card\nextras:\n  templateData:\n    a:\n      __proto__:\n        x: 1\n-->\n## Front\nq\n\n## Back\na\n';
    const viaMarkdown = await markdown(doc);
    assertError(viaMarkdown, 400, 'PARSE_FAILED');
    assert.match(viaMarkdown.body.error.message, /__proto__/);
    assert.equal(await deckCount(), before);
  });
});
