import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDeck, deckBody, type ApiResponse, manualClock, buildForSuite } from '../../helpers/server.ts';

const PUBLIC_URL = 'https://flash.example.com';

function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

describe('GET /decks', () => {
  const time = manualClock('2030-05-01T08:00:00.000Z');
  const suite = buildForSuite({ env: { PUBLIC_URL }, overrides: { clock: time.clock } });

  async function pages(token: string, limit: number): Promise<{ ids: string[]; sizes: number[] }> {
    const ids: string[] = [];
    const sizes: number[] = [];
    let next: string | null = null;
    do {
      const query: string = next === null ? `?limit=${limit}` : `?limit=${limit}&token=${encodeURIComponent(next)}`;
      const res = await suite.server.api('GET', `/decks${query}`, { token });
      assert.equal(res.status, 200, res.text);
      ids.push(...res.body.items.map((d: { id: string }) => d.id));
      sizes.push(res.body.items.length);
      next = res.body.nextToken;
    } while (next !== null && sizes.length < 50);
    return { ids, sizes };
  }

  test('should list summaries of the user\'s decks only', async () => {
    const user = await suite.server.user();
    const other = await suite.server.user();
    await createDeck(suite.server, other.token, 1, 'Not mine');
    const { deckId } = await createDeck(suite.server, user.token, 2, 'Mine');
    const res = await suite.server.api('GET', '/decks', { token: user.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.nextToken, null);
    assert.equal(res.body.items.length, 1);
    const summary = res.body.items[0];
    assert.equal(summary.id, deckId);
    assert.match(summary.id, /^dck_[\w-]+$/);
    assert.equal(summary.title, 'Mine');
    assert.equal(summary.cardCount, 2);
    assert.equal(summary.visibility, 'private');
    assert.equal(summary.version, summary.updatedAt);
    assert.equal(summary.previewUrl, `${PUBLIC_URL}/decks/${deckId}`);
    assert.equal(summary.editUrl, `${PUBLIC_URL}/decks/${deckId}/edit`);
    assert.equal('cards' in summary, false);
  });

  test('should order by updatedAt descending, then id descending', async () => {
    const user = await suite.server.user();
    const created: { id: string; at: number }[] = [];
    for (const offset of [1, 2, 3, 3, 3, 3]) {
      time.ms = Date.parse('2030-05-01T09:00:00.000Z') + offset * 1000;
      created.push({ id: (await createDeck(suite.server, user.token, 1)).deckId, at: time.ms });
    }
    time.ms = Date.parse('2030-05-01T09:00:10.000Z');
    const touched = created[0];
    assert.equal((await suite.server.api('PATCH', `/decks/${touched.id}`, { token: user.token, json: { title: 'Touched' } })).status, 200);
    touched.at = time.ms;
    const expected = [...created]
      .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((d) => d.id);
    const res = await suite.server.api('GET', '/decks', { token: user.token });
    assert.deepEqual(res.body.items.map((d: { id: string }) => d.id), expected);
    assert.equal(res.body.items[0].id, touched.id);
    const paged = await pages(user.token, 2);
    assert.deepEqual(paged.ids, expected);
  });

  test('should page through every deck exactly once with nextToken', async () => {
    const user = await suite.server.user();
    const ids = new Set<string>();
    for (let i = 0; i < 7; i++) {
      time.ms += 1000;
      ids.add((await createDeck(suite.server, user.token, 1, `Deck ${i}`)).deckId);
    }
    const { ids: seen, sizes } = await pages(user.token, 3);
    assert.deepEqual(sizes, [3, 3, 1]);
    assert.equal(new Set(seen).size, seen.length, 'no duplicates');
    assert.deepEqual(new Set(seen), ids);
  });

  test('should return null nextToken when the last page is exactly full', async () => {
    const user = await suite.server.user();
    for (let i = 0; i < 4; i++) await createDeck(suite.server, user.token, 1);
    const first = await suite.server.api('GET', '/decks?limit=4', { token: user.token });
    assert.equal(first.body.items.length, 4);
    assert.equal(first.body.nextToken, null);
  });

  test('should neither repeat nor skip existing decks when a deck is created between pages', async () => {
    const user = await suite.server.user();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      time.ms += 1000;
      ids.push((await createDeck(suite.server, user.token, 1)).deckId);
    }
    const first = await suite.server.api('GET', '/decks?limit=2', { token: user.token });
    time.ms += 1000;
    const late = (await createDeck(suite.server, user.token, 1, 'Late')).deckId;
    const seen = first.body.items.map((d: { id: string }) => d.id);
    let next: string | null = first.body.nextToken;
    while (next !== null) {
      const res = await suite.server.api('GET', `/decks?limit=2&token=${encodeURIComponent(next)}`, { token: user.token });
      seen.push(...res.body.items.map((d: { id: string }) => d.id));
      next = res.body.nextToken;
    }
    assert.deepEqual(seen, [...ids].reverse());
    assert.equal(seen.includes(late), false);
  });

  test('should default to 25 decks per page', async () => {
    const user = await suite.server.user();
    for (let i = 0; i < 26; i++) {
      time.ms += 1000;
      await suite.server.api('POST', '/decks/import', { token: user.token, json: deckBody(1, `D${i}`) });
    }
    const res = await suite.server.api('GET', '/decks', { token: user.token });
    assert.equal(res.body.items.length, 25);
    assert.equal(typeof res.body.nextToken, 'string');
    const rest = await suite.server.api('GET', `/decks?token=${encodeURIComponent(res.body.nextToken)}`, { token: user.token });
    assert.equal(rest.body.items.length, 1);
    assert.equal(rest.body.nextToken, null);
  });

  test('should reject limit 0, 101, abc, -1 and 1.5 with 400 BAD_REQUEST naming limit', async () => {
    const user = await suite.server.user();
    for (const limit of ['0', '101', 'abc', '-1', '1.5', '']) {
      const res = await suite.server.api('GET', `/decks?limit=${limit}`, { token: user.token });
      assertError(res, 400, 'BAD_REQUEST');
      assert.equal(res.body.error.details.field, 'limit', `limit=${limit}`);
    }
  });

  test('should reject a malformed or tampered token with 400 BAD_REQUEST', async () => {
    const user = await suite.server.user();
    for (let i = 0; i < 3; i++) await createDeck(suite.server, user.token, 1);
    const page = await suite.server.api('GET', '/decks?limit=1', { token: user.token });
    const good: string = page.body.nextToken;
    const [payload, signature] = good.split('.');
    const forged = Buffer.from(JSON.stringify(['2999-01-01T00:00:00.000Z', 'dck_x'])).toString('base64url');
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    const bad = ['abc', 'a.b.c', `${payload}.`, `.${signature}`, `${flip(payload)}.${signature}`, `${payload}.${flip(signature)}`, `${forged}.${signature}`, `${good}x`];
    for (const token of bad) {
      const res = await suite.server.api('GET', `/decks?limit=1&token=${encodeURIComponent(token)}`, { token: user.token });
      assertError(res, 400, 'BAD_REQUEST');
    }
    const ok = await suite.server.api('GET', `/decks?limit=1&token=${encodeURIComponent(good)}`, { token: user.token });
    assert.equal(ok.status, 200);
  });
});

describe('GET /decks/{deckId}', () => {
  const suite = buildForSuite({ env: { PUBLIC_URL } });

  test('should return the deck with its complete card set in order', async () => {
    const { deckId, version } = await createDeck(suite.server, suite.user.token, 4, 'Cells');
    const res = await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.body.id, deckId);
    assert.equal(res.body.title, 'Cells');
    assert.equal(res.body.lang, 'en');
    assert.deepEqual(res.body.tags, []);
    assert.equal(res.body.version, version);
    assert.equal(res.body.cardCount, 4);
    assert.equal(res.body.previewUrl, `${PUBLIC_URL}/decks/${deckId}`);
    assert.equal(res.body.editUrl, `${PUBLIC_URL}/decks/${deckId}/edit`);
    assert.equal(res.body.nextCardsToken, undefined);
    assert.deepEqual(res.body.cards.map((c: { order: number }) => c.order), [0, 1, 2, 3]);
    assert.deepEqual(res.body.cards.map((c: { front: string }) => c.front), ['Question 1', 'Question 2', 'Question 3', 'Question 4']);
    for (const card of res.body.cards) {
      assert.match(card.id, /^crd_[\w-]+$/);
      assert.equal(card.oneSided, false);
      assert.equal(card.extras.frontType, 'markdown');
      assert.equal(card.extras.backType, 'markdown');
    }
  });

  test('should answer 404 DECK_NOT_FOUND for a deck that does not exist', async () => {
    assertError(await suite.server.api('GET', '/decks/dck_doesnotexist', { token: suite.user.token }), 404, 'DECK_NOT_FOUND');
    assertError(await suite.server.api('GET', '/decks/dck_doesnotexist', { token: suite.user.token, headers: { accept: 'text/markdown' } }), 404, 'DECK_NOT_FOUND');
  });

  test('should export the deck as markdown with Accept: text/markdown', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 2, 'Exported');
    const res = await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token, headers: { accept: 'text/markdown' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/markdown/);
    assert.match(res.text, /^---\n/);
    assert.match(res.text, /^# Exported$/m);
    assert.match(res.text, /^## Front\nQuestion 2$/m);
    assert.match(res.text, /^## Back\nAnswer 2$/m);
  });

  test('should import the markdown export back to the same deck', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 3, 'Round trip');
    const original = await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token });
    const markdown = await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token, headers: { accept: 'text/markdown' } });
    const imported = await suite.server.api('POST', '/decks/import', { token: suite.user.token, body: markdown.text, headers: { 'content-type': 'text/markdown' } });
    assert.equal(imported.status, 201, imported.text);
    const copy = await suite.server.api('GET', `/decks/${imported.body.deckId}`, { token: suite.user.token });
    const strip = (cards: { id?: string }[]) => cards.map(({ id: _id, ...rest }) => rest);
    assert.deepEqual(strip(copy.body.cards), strip(original.body.cards));
    assert.equal(copy.body.title, original.body.title);
  });

  test('should choose by Accept q-values, JSON winning ties', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    const cases: [string, RegExp][] = [
      ['application/json', /^application\/json/],
      ['text/markdown;q=0.5, application/json', /^application\/json/],
      ['application/json;q=0.2, text/markdown', /^text\/markdown/],
      ['text/markdown, application/json', /^application\/json/],
      ['*/*', /^application\/json/],
    ];
    for (const [accept, type] of cases) {
      const res = await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token, headers: { accept } });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', type, accept);
    }
  });
});

describe('PATCH /decks/{deckId}', () => {
  const time = manualClock('2030-06-01T08:00:00.000Z');
  const suite = buildForSuite({ env: { PUBLIC_URL }, overrides: { clock: time.clock } });

  test('should update metadata, keep the cards, and move version to the update time', async () => {
    const { deckId, version } = await createDeck(suite.server, suite.user.token, 2);
    time.ms += 5000;
    const res = await suite.server.api('PATCH', `/decks/${deckId}`, {
      token: suite.user.token, json: { title: 'New title', description: 'About it', visibility: 'unlisted', lang: 'fr', thumbnail: 'https://img.example.com/t.png' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.title, 'New title');
    assert.equal(res.body.description, 'About it');
    assert.equal(res.body.visibility, 'unlisted');
    assert.equal(res.body.lang, 'fr');
    assert.equal(res.body.thumbnail, 'https://img.example.com/t.png');
    assert.equal(res.body.cards.length, 2);
    assert.notEqual(res.body.version, version);
    assert.equal(res.body.version, new Date(time.ms).toISOString());
    const read = await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token });
    assert.equal(read.text, res.text);
  });

  test('should clear description and thumbnail with null', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, json: { description: 'x', thumbnail: 'https://a.example/t.png' } });
    const res = await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, json: { description: null, thumbnail: null } });
    assert.equal(res.status, 200);
    assert.equal(res.body.description, null);
    assert.equal(res.body.thumbnail, null);
  });

  test('should leave version unchanged when the PATCH changes nothing', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1, 'Same');
    time.ms += 5000;
    const first = await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, json: { visibility: 'public' } });
    time.ms += 5000;
    const again = await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, json: { visibility: 'public', title: 'Same' } });
    assert.equal(again.status, 200);
    assert.equal(again.body.version, first.body.version);
  });

  test('should trim tags, drop empty ones and de-duplicate case-insensitively keeping the first spelling', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    const res = await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, json: { tags: ['  Biology ', 'cells', '', '   ', 'biology', 'CELLS', 'Mitosis'] } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.tags, ['Biology', 'cells', 'Mitosis']);
  });

  test('should answer 412 VERSION_MISMATCH for a stale If-Match and accept the current version quoted or not', async () => {
    const { deckId, version } = await createDeck(suite.server, suite.user.token, 1);
    time.ms += 5000;
    const moved = await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, headers: { 'if-match': version }, json: { title: 'One' } });
    assert.equal(moved.status, 200);
    const stale = await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, headers: { 'if-match': version }, json: { title: 'Lost' } });
    assertError(stale, 412, 'VERSION_MISMATCH');
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body.title, 'One');
    time.ms += 5000;
    const quoted = await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, headers: { 'if-match': `"${moved.body.version}"` }, json: { title: 'Two' } });
    assert.equal(quoted.status, 200, quoted.text);
    time.ms += 5000;
    const bare = await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, headers: { 'if-match': quoted.body.version }, json: { title: 'Three' } });
    assert.equal(bare.status, 200, bare.text);
    assert.equal(bare.body.title, 'Three');
  });

  test('should answer 404 DECK_NOT_FOUND for an unknown deck', async () => {
    assertError(await suite.server.api('PATCH', '/decks/dck_nope', { token: suite.user.token, json: { title: 'x' } }), 404, 'DECK_NOT_FOUND');
  });

  test('should answer 400 BAD_REQUEST for malformed JSON and for an empty body', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    const malformed = await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, body: '{"title": ', headers: { 'content-type': 'application/json' } });
    assertError(malformed, 400, 'BAD_REQUEST');
    assertError(await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token }), 400, 'BAD_REQUEST');
    assertError(await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, body: '', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
  });

  test('should answer 400 SCHEMA_INVALID naming the field for an invalid patch', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    const cases: [unknown, string][] = [
      [{ cards: [] }, 'cards'],
      [{ visibility: 'secret' }, 'visibility'],
      [{ title: 42 }, 'title'],
      [{ thumbnail: 'data:image/png;base64,AAAA' }, 'thumbnail'],
    ];
    for (const [json, field] of cases) {
      const res = await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, json });
      assertError(res, 400, 'SCHEMA_INVALID');
      assert.equal(res.body.error.details.field, field, JSON.stringify(json));
    }
    assertError(await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, json: {} }), 400, 'SCHEMA_INVALID');
    assertError(await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, json: [] }), 400, 'SCHEMA_INVALID');
  });

  test('should answer 415 UNSUPPORTED_MEDIA_TYPE for a markdown or plain-text body', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    for (const type of ['text/markdown', 'text/plain', 'application/xml']) {
      const res = await suite.server.api('PATCH', `/decks/${deckId}`, { token: suite.user.token, body: '# Title', headers: { 'content-type': type } });
      assertError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });
});
