// Text is Unicode: a lone UTF-16 surrogate ("\ud800" in JSON or YAML) is not text, cannot be stored
// as sent (it became U+FFFD, so the same payload moved `version` again), and is refused with
// SCHEMA_INVALID naming the field, in JSON and markdown alike. Every other code point is kept exactly.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertSchemaInvalidAt as assertRefused, buildForSuiteWithDeck } from '../../helpers/fixtures.ts';
import { buildForSuite } from '../../helpers/server.ts';

const LONE = ['\ud800', '\udfff', 'a\ud83e', '\udde0b'];
// Edges that are text and must come back unchanged.
const EDGES = ['\u0000', '\ufeff', '\u200f\u202e', 'e\u0301\u0327', '🧠𝔸', '\u2028\u2029', '\u0085', '\r\n', '\ufffd', 'a\ud83e\udde0b'];

describe('Unicode text', () => {
  const f = buildForSuiteWithDeck();

  const FIELDS: [string, (s: string) => Record<string, unknown>, string][] = [
    ['deck.title', (s) => ({ deck: { title: `T${s}` }, cards: [{ front: 'q' }] }), 'deck.title'],
    ['deck.description', (s) => ({ deck: { title: 'T', description: s }, cards: [{ front: 'q' }] }), 'deck.description'],
    ['deck.tags', (s) => ({ deck: { title: 'T', tags: ['ok', s] }, cards: [{ front: 'q' }] }), 'deck.tags[1]'],
    ['front', (s) => ({ deck: { title: 'T' }, cards: [{ front: `q${s}` }] }), 'cards[0].front'],
    ['back', (s) => ({ deck: { title: 'T' }, cards: [{ front: 'q' }, { front: 'q', back: s }] }), 'cards[1].back'],
    ['imageAlt', (s) => ({ deck: { title: 'T' }, cards: [{ front: 'q', backMedia: { imageUrl: '/a.png', imageAlt: s } }] }), 'cards[0].backMedia.imageAlt'],
    ['extras.info', (s) => ({ deck: { title: 'T' }, cards: [{ front: 'q', extras: { info: s } }] }), 'cards[0].extras.info'],
    ['extras.subject', (s) => ({ deck: { title: 'T' }, cards: [{ front: 'q', extras: { subject: s } }] }), 'cards[0].extras.subject'],
    ['extras.tags', (s) => ({ deck: { title: 'T' }, cards: [{ front: 'q', extras: { tags: [s] } }] }), 'cards[0].extras.tags[0]'],
    ['templateData value', (s) => ({ deck: { title: 'T' }, cards: [{ front: 'q', extras: { templateData: { a: [{ b: s }] } } }] }), 'cards[0].extras.templateData.a[0].b'],
  ];

  test('should refuse a lone surrogate in any string of a JSON import, naming the field', async () => {
    for (const lone of LONE) {
      for (const [label, body, field] of FIELDS) {
        assertRefused(await f.server.api('POST', '/decks/import', { token: f.user.token, json: body(lone) }), field, `${label} ${JSON.stringify(lone)}`);
      }
      const key = await f.server.api('POST', '/decks/import', { token: f.user.token, json: { deck: { title: 'T' }, cards: [{ front: 'q', extras: { templateData: { [`k${lone}`]: 1 } } }] } });
      assert.equal(key.status, 400, key.text);
      assert.match(key.body.error.details.field, /^cards\[0\]\.extras\.templateData\.k/);
    }
  });

  test('should refuse it in append, card PATCH and deck PATCH, and leave the deck and its version alone', async () => {
    const before = (await f.server.api('GET', `/decks/${f.deckId}`, { token: f.user.token })).body;
    for (const lone of LONE) {
      for (let repeat = 0; repeat < 2; repeat++) {
        assertRefused(await f.server.api('PATCH', `/decks/${f.deckId}`, { token: f.user.token, json: { title: `T${lone}` } }), 'title', 'deck PATCH');
        assertRefused(await f.server.api('PATCH', `/decks/${f.deckId}/cards/${f.cardId}`, { token: f.user.token, json: { back: lone } }), 'back', 'card PATCH');
        assertRefused(await f.server.api('POST', `/decks/${f.deckId}/cards`, { token: f.user.token, json: { cards: [{ front: lone }] } }), 'cards[0].front', 'append');
        assertRefused(await f.server.api('POST', `/decks/import?mode=update&targetDeckId=${f.deckId}`, {
          token: f.user.token, json: { deck: { title: `T${lone}` }, cards: [{ front: 'q' }] },
        }), 'deck.title', 'update import');
      }
    }
    assert.deepEqual((await f.server.api('GET', `/decks/${f.deckId}`, { token: f.user.token })).body, before);
  });

  test('should refuse a lone surrogate written as a YAML escape in markdown, naming the same field as JSON', async () => {
    const doc = (front: string, meta: string) => `---\nversion: 1\n${front}---\n${front.startsWith('title:') ? '' : '# T\n'}\n<!-- card\n${meta}-->\n## Front\nq\n`;
    const cases: [string, string, string][] = [
      ['title: "T\\ud800"\n', '', 'deck.title'],
      ['tags: [ok, "\\udfff"]\n', '', 'deck.tags[1]'],
      ['', 'back: "\\ud800"\n', 'cards[0].back'],
      ['', 'extras:\n  info: "x\\ud83e"\n', 'cards[0].extras.info'],
      ['', 'extras:\n  templateData: {"a": ["\\udc00"]}\n', 'cards[0].extras.templateData.a[0]'],
    ];
    for (const [front, meta, field] of cases) {
      const res = await f.server.api('POST', '/decks/import', { token: f.user.token, body: doc(front, meta), headers: { 'content-type': 'text/markdown' } });
      assertRefused(res, field, `markdown ${field}`);
    }
  });

  test('should keep every other code point exactly, through JSON and through a markdown export and import', async () => {
    const cards = EDGES.map((edge) => ({ front: `q${edge}`, back: edge, extras: { info: edge, tags: [edge], templateData: { [edge]: edge } } }));
    const created = await f.server.api('POST', '/decks/import', { token: f.user.token, json: { deck: { title: `T${EDGES.join('')}`, description: EDGES.join('|'), tags: EDGES.map((e) => `t${e}`) }, cards } });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    const stored = (await f.server.api('GET', `/decks/${created.body.deckId}`, { token: f.user.token })).body;
    assert.deepEqual(stored.cards.map((c: { front: string; back: string }) => [c.front, c.back]), cards.map((c) => [c.front, c.back]));
    assert.equal(stored.title, `T${EDGES.join('')}`);
    const exported = await f.server.api('GET', `/decks/${created.body.deckId}`, { token: f.user.token, headers: { accept: 'text/markdown' } });
    const update = await f.server.api('POST', `/decks/import?mode=update&targetDeckId=${created.body.deckId}`, {
      token: f.user.token, body: exported.text, headers: { 'content-type': 'text/markdown' },
    });
    assert.equal(update.status, 200, update.text.slice(0, 300));
    assert.equal(update.body.version, stored.version, 'the same deck again changes nothing, not even version');
  });

  // Last: such a key can make JSON.parse misread later keys (test/validation.test.ts).
  test('should refuse a property named with one backslash, in JSON and markdown, naming it', async () => {
    // JSON text with such a key is refused before it is parsed, so the key cannot be named.
    const json = await f.server.api('POST', '/decks/import', { token: f.user.token, json: { deck: { title: 'T' }, cards: [{ front: 'q', extras: { templateData: { a: { '\\': 1 } } } }] } });
    assert.equal(json.status, 400, json.text);
    assert.equal(json.body.error.code, 'SCHEMA_INVALID');
    assert.match(json.body.error.message, /one backslash/);
    // The process still reads escaped one-character keys as written.
    const after = await f.server.api('POST', '/decks/import', { token: f.user.token, body: '{"deck":{"title":"T"},"cards":[{"front":"q","extras":{"templateData":{"\\u00e9":1,"\\n":2}}}]}', headers: { 'content-type': 'application/json' } });
    assert.equal(after.status, 201, after.text);
    const deck = await f.server.api('GET', `/decks/${after.body.deckId}`, { token: f.user.token });
    assert.deepEqual(Object.keys(deck.body.cards[0].extras.templateData).sort(), ['\n', '\u00e9']);
    const md = await f.server.api('POST', '/decks/import', {
      token: f.user.token, body: '---\nversion: 1\n---\n# T\n\n<!-- card\nextras:\n  templateData: {"a":{"\\\\":1}}\n-->\n## Front\nq\n', headers: { 'content-type': 'text/markdown' },
    });
    assertRefused(md, 'cards[0].extras.templateData.a.\\', 'markdown');
  });
});

describe('bytes that are not UTF-8', () => {
  const suite = buildForSuite();

  const INVALID = [Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xe2, 0x82]), Buffer.from([0xc0, 0xaf])];

  test('should refuse a JSON or markdown body with bytes that are not UTF-8 with 400 BAD_REQUEST, storing nothing', async () => {
    const before = (await suite.server.api('GET', '/decks/capacity', { token: suite.user.token })).body.current_decks as number;
    for (const bad of INVALID) {
      const json = Buffer.concat([Buffer.from('{"deck":{"title":"t'), bad, Buffer.from('"},"cards":[{"front":"q","back":"a"}]}')]);
      const res = await suite.server.api('POST', '/decks/import', { token: suite.user.token, body: json, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'BAD_REQUEST');
      assert.match(res.body.error.message, /UTF-8/);
      const markdown = Buffer.concat([Buffer.from('---\nversion: 1\nlang: en\n---\n# T'), bad, Buffer.from('\n\n## Front\nq\n\n## Back\na\n')]);
      const md = await suite.server.api('POST', '/decks/import', { token: suite.user.token, body: markdown, headers: { 'content-type': 'text/markdown' } });
      assert.equal(md.status, 400, md.text);
      assert.equal(md.body.error.code, 'BAD_REQUEST');
    }
    assert.equal((await suite.server.api('GET', '/decks/capacity', { token: suite.user.token })).body.current_decks, before);
  });
});

describe('a property named with one backslash, on every route that reads JSON', () => {
  const suite = buildForSuite();

  // The JSON reader refuses such a key before any route sees the body, so every route that reads
  // JSON answers it, and must document it (the route fuzzer found two that did not).
  test('should refuse it with 400 SCHEMA_INVALID on every operation with a JSON body, as each documents', async () => {
    const doc = suite.server.app.apiDocument() as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>> };
    let checked = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (operation.requestBody?.content['application/json'] === undefined) continue;
        const url = path.replace(/\{[^}]+\}/g, 'x_unknown');
        const res = await suite.server.api(method.toUpperCase(), url, { token: suite.user.token, body: '{"\\\\":0}', headers: { 'content-type': 'application/json' } });
        assert.equal(res.status, 400, `${method} ${path}: ${res.text}`);
        assert.equal(res.body.error.code, 'SCHEMA_INVALID', `${method} ${path}`);
        checked++;
      }
    }
    assert.ok(checked >= 11, `${checked} operations checked`);
  });
});
