// Deep nesting and sizes past the limits, over HTTP: refused with a 4xx in the error envelope,
// enforced before the work they limit (never a 500, never a stall: /healthz keeps answering, and
// the event loop is never held for seconds of CPU in one stretch, test/helpers/stall.ts), and
// values at the limits accepted and exported to markdown and back unchanged.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { contentHash } from '../../src/modules/decks/card-hash.ts';
import { updateCardData } from '../../src/modules/decks/decks.repository.ts';
import { buildForSuiteWithDeck } from '../helpers/fixtures.ts';
import { type ApiResponse, createDeck } from '../helpers/server.ts';
import { watchEventLoop } from '../helpers/stall.ts';

const STALL_MS = 2000;
// extras.templateData, as the OpenAPI document states them.
const TEMPLATE_DATA_LIMITS = { maxDepth: 16, maxMembers: 256, maxBytes: 16_384 };

/** `{"a":{"a":...}}` nested `depth` levels, the innermost holding `leaf`. */
function nestedObject(depth: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}
const nestedArrayText = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('nesting and size limits', () => {
  // A socket: /healthz is polled over one while the refused request is read.
  const f = buildForSuiteWithDeck(2, { socket: true });
  let sessionId: string;

  before(async () => {
    sessionId = (await f.server.api('POST', '/reviews', { token: f.user.token, json: { deckId: f.deckId } })).body.id;
  });

  async function timed(request: () => Promise<ApiResponse>): Promise<ApiResponse> {
    let done = false;
    const watch = watchEventLoop();
    const poller = (async () => {
      while (!done) {
        await (await fetch(`${f.server.url}/healthz`)).arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    try {
      const res = await request();
      return res;
    } finally {
      done = true;
      const { longestBlockCpuMs } = watch.stop();
      await poller;
      assert.ok(longestBlockCpuMs < STALL_MS, `the server held its event loop for ${Math.round(longestBlockCpuMs)} ms of CPU while the request ran`);
    }
  }

  const send = (method: string, path: string, body: string, type = 'application/json') => f.server.api(method, path, {
    token: f.user.token, body, headers: { 'content-type': type },
  });
  const markdown = (doc: string) => timed(() => send('POST', '/decks/import', doc, 'text/markdown'));

  function assertCode(res: ApiResponse, status: number, code: string, label: string): void {
    assert.equal(res.status, status, `${label}: ${res.text.slice(0, 300)}`);
    assert.equal(res.body.error.code, code, label);
  }

  // 4,400 levels overflowed the stack in canonical() (500); 2,000-3,000 were stored and then made
  // every markdown export of the deck a 500.
  test('should refuse templateData nested thousands of levels in import, append and card PATCH', async () => {
    for (const depth of [2_500, 4_400, 100_000]) {
      const templateData = nestedObject(depth);
      const card = { front: 'q', extras: { templateData } };
      const cases: [string, string, unknown, string][] = [
        ['POST', '/decks/import', { deck: { title: 'Deep' }, cards: [card] }, 'cards[0].extras.templateData'],
        ['POST', `/decks/${f.deckId}/cards`, { cards: [card] }, 'cards[0].extras.templateData'],
        ['PATCH', `/decks/${f.deckId}/cards/${f.cardId}`, { extras: { templateData } }, 'extras.templateData'],
      ];
      for (const [method, path, body, field] of cases) {
        // Serialised by hand: JSON.stringify itself overflows the stack on such values.
        const text = JSON.stringify(body, (key, value) => (key === 'templateData' ? '\u0000deep\u0000' : value))
          .replace('"\\u0000deep\\u0000"', `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
        const res = await timed(() => send(method, path, text));
        assertCode(res, 400, 'SCHEMA_INVALID', `${method} ${path} depth ${depth}`);
        assert.equal(res.body.error.details.field, field);
      }
    }
    const exported = await f.server.api('GET', `/decks/${f.deckId}`, { token: f.user.token, headers: { accept: 'text/markdown' } });
    assert.equal(exported.status, 200);
  });

  test('should still export a card whose templateData was stored deeper than the limits before they existed', async () => {
    const { deckId: legacyDeck } = await createDeck(f.server, f.user.token, 1);
    const card = (await f.server.api('GET', `/decks/${legacyDeck}`, { token: f.user.token })).body.cards[0];
    const data = `{"front":"q","back":"a","oneSided":false,"extras":{"frontType":"markdown","backType":"markdown","templateData":${'{"a":'.repeat(2_500)}1${'}'.repeat(2_500)}}}`;
    await updateCardData(f.server.app.services.db, { id: legacyDeck, userId: f.user.userId, visibility: 'private' }, card.id, data, contentHash(data));
    const exported = await f.server.api('GET', `/decks/${legacyDeck}`, { token: f.user.token, headers: { accept: 'text/markdown' } });
    assert.equal(exported.status, 200, exported.text.slice(0, 300));
    assert.ok(exported.text.includes(`templateData: ${'{"a":'.repeat(2_500)}1`));
  });

  test('should answer bodies nested 100,000 levels anywhere with a 4xx on every body route', async () => {
    const deep = nestedArrayText(100_000);
    const bodies = [
      deep,
      `{"deck":{"title":"T"},"cards":${deep}}`,
      `{"deck":${deep},"cards":[{"front":"q"}]}`,
      `{"deck":{"title":"T"},"cards":[{"front":"q","extras":{"templateData":{"x":${deep}}}}]}`,
      `{"deck":{"title":"T"},"cards":[{"front":"q"}],"unknown":${deep}}`,
      `{"cards":[{"front":"q","frontMedia":${deep}}]}`,
      `{"title":${deep}}`,
      `{"deckId":${deep}}`,
      `{"cardId":"x","rating":${deep}}`,
    ];
    const routes: [string, string][] = [
      ['POST', '/decks/import'], ['POST', '/decks/import?mode=update&targetDeckId=' + f.deckId], ['POST', `/decks/${f.deckId}/cards`],
      ['PATCH', `/decks/${f.deckId}/cards/${f.cardId}`], ['PATCH', `/decks/${f.deckId}`], ['POST', '/reviews'],
      ['POST', `/reviews/${sessionId}/answers`], ['POST', `/reviews/${sessionId}/complete`],
    ];
    for (const [method, path] of routes) {
      for (const body of bodies) {
        const res = await timed(() => send(method, path, body));
        assert.ok(res.status < 500, `${method} ${path} ${body.slice(0, 60)}: ${res.status} ${res.text.slice(0, 200)}`);
        if (!path.endsWith('/complete')) assert.ok(res.status >= 400, `${method} ${path} ${body.slice(0, 60)}: ${res.status}`);
      }
    }
  });

  test('should accept templateData at every limit, export it as markdown and import it back unchanged', async () => {
    const { maxDepth, maxMembers, maxBytes } = TEMPLATE_DATA_LIMITS;
    const members: Record<string, number> = {};
    for (let i = 0; i < maxMembers - 1; i++) members[`k${i}`] = i;
    const atLimits = [
      nestedObject(maxDepth - 2, { deepest: ['x'] }), // levels: the outermost object, 13 more, {deepest}, its list
      { many: Object.values(members) }, // maxMembers in all: "many" and its items
      { text: 'é'.repeat((maxBytes - '{"text":""}'.length) / 2) }, // 2 bytes each in UTF-8
      { 'key with spaces': 'ünïcödé 🧠', '': null, nested: [{ a: [1.5, -2e-7, true, false, null] }], 'line\nbreak': '\u0085\u2028\ufeff\u007f' },
    ];
    const cards = atLimits.map((templateData, i) => ({ front: `q${i}`, extras: { templateData } }));
    const created = await f.server.api('POST', '/decks/import', { token: f.user.token, json: { deck: { title: 'Limits' }, cards } });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    const stored = await f.server.api('GET', `/decks/${created.body.deckId}`, { token: f.user.token });
    const exported = await f.server.api('GET', `/decks/${created.body.deckId}`, { token: f.user.token, headers: { accept: 'text/markdown' } });
    assert.equal(exported.status, 200);
    const reimported = await markdown(exported.text);
    assert.equal(reimported.status, 201, reimported.text.slice(0, 300));
    const again = await f.server.api('GET', `/decks/${reimported.body.deckId}`, { token: f.user.token });
    assert.deepEqual(again.body.cards.map((c: { extras: unknown }) => c.extras), stored.body.cards.map((c: { extras: unknown }) => c.extras));
  });

  test('should refuse templateData one past each limit, in JSON and in markdown alike', async () => {
    const { maxDepth, maxMembers, maxBytes } = TEMPLATE_DATA_LIMITS;
    const members: Record<string, number> = {};
    for (let i = 0; i <= maxMembers; i++) members[`k${i}`] = i;
    const past: [string, unknown][] = [
      ['nested', nestedObject(maxDepth + 1)],
      ['members', { ...members }],
      ['bytes', { text: 'x'.repeat(maxBytes - '{"text":""}'.length + 1) }],
    ];
    for (const [label, templateData] of past) {
      const json = await f.server.api('POST', '/decks/import', { token: f.user.token, json: { deck: { title: 'Past' }, cards: [{ front: 'q', extras: { templateData } }] } });
      assertCode(json, 400, 'SCHEMA_INVALID', `JSON ${label}`);
      assert.equal(json.body.error.details.field, 'cards[0].extras.templateData');
      const md = await markdown(`---\nversion: 1\n---\n# Past\n\n<!-- card\nextras:\n  templateData: ${JSON.stringify(templateData)}\n-->\n## Front\nq\n`);
      assertCode(md, 400, 'SCHEMA_INVALID', `markdown ${label}`);
      assert.deepEqual(md.body.error.details, json.body.error.details, label);
    }
  });

  test('should refuse YAML nested a million levels, in front matter and card meta, with PARSE_FAILED', async () => {
    const n = 1_000_000;
    const shapes = [`${'['.repeat(n)}${']'.repeat(n)}`, `${'{a: '.repeat(n)}${'}'.repeat(n)}`, `\n    ${'- '.repeat(n)}x`];
    for (const shape of shapes) {
      const front = await markdown(`---\nversion: 1\ndescription: ${shape}\n---\n# T\n\n## Front\nq\n`);
      assertCode(front, 400, 'PARSE_FAILED', `front matter ${shape.slice(0, 8)}`);
      assert.ok(front.body.error.details.line >= 3 && front.body.error.details.line <= 4, front.text.slice(0, 200));
      const meta = await markdown(`---\nversion: 1\n---\n# T\n\n<!-- card\nextras:\n  templateData: ${shape}\n-->\n## Front\nq\n`);
      assertCode(meta, 400, 'PARSE_FAILED', `meta ${shape.slice(0, 8)}`);
    }
    // Block mappings indented one more space per level.
    let block = '';
    for (let i = 0; i < 3_000; i++) block += `${' '.repeat(i)}k:\n`;
    assertCode(await markdown(`---\nversion: 1\n---\n# T\n\n<!-- card\n${block}-->\n## Front\nq\n`), 400, 'PARSE_FAILED', 'indented mappings');
  });

  test('should refuse YAML whose aliases expand past the limits, or that holds too many tokens, with PARSE_FAILED', async () => {
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const name of 'bcdefghi') laughs.push(`${name}: &${name} [${Array(9).fill(`*${String.fromCharCode(name.charCodeAt(0) - 1)}`).join(',')}]`);
    const cases: [string, string][] = [
      ['billion laughs', `<!-- card\nextras:\n  templateData:\n${laughs.map((l) => `    ${l}`).join('\n')}\n-->\n## Front\nq`],
      ['one long string 100 times', `<!-- card\nextras:\n  info: &s "${'x'.repeat(100_000)}"\n  templateData: {a: [${Array(100).fill('*s').join(', ')}]}\n-->\n## Front\nq`],
      ['60,000 keys', `<!-- card\n# a comment, so the YAML library reads this block\nextras:\n${Array.from({ length: 60_000 }, (_, i) => `  k${i}: 1`).join('\n')}\n-->\n## Front\nq`],
      ['60,000 flow items', `<!-- card\nextras:\n  templateData: {a: [${'1, '.repeat(60_000)}1]}\n-->\n## Front\nq`],
    ];
    for (const [label, card] of cases) {
      assertCode(await markdown(`---\nversion: 1\n---\n# T\n\n${card}\n`), 400, 'PARSE_FAILED', label);
    }
  });

  // 200,000 card blocks with meta comments (14.5 MB) blocked the server 6-7 s before TOO_MANY_CARDS.
  test('should stop a markdown import at the 251st card with TOO_MANY_CARDS naming its line', async () => {
    const card = (i: number) => `<!-- card\nextras:\n  subject: s${i}\n-->\n## Front\nq${i}\n\n## Back\na${i}\n`;
    const cards = Array.from({ length: 200_000 }, (_, i) => card(i));
    // What follows the 251st card is never read: not even a block that could not be parsed.
    cards[300] = '<!-- card\nextras: [unclosed\n-->\n## Front\nq\n';
    const doc = `---\nversion: 1\n---\n# Huge\n\n${cards.join('\n---\n\n')}`;
    const res = await markdown(doc);
    assertCode(res, 400, 'TOO_MANY_CARDS', 'markdown');
    const line = doc.split('\n').findIndex((l) => l === '  subject: s250') - 1;
    assert.equal(res.body.error.details.line, line);
  });

  test('should refuse 200,000 cards in JSON with TOO_MANY_CARDS before validating any of them', async () => {
    const cards = `[${Array(200_000).fill('{"front":1,"back":1,"oneSided":1,"frontMedia":1,"backMedia":1,"extras":1}').join(',')}]`;
    assertCode(await timed(() => send('POST', '/decks/import', `{"deck":{"title":"T"},"cards":${cards}}`)), 400, 'TOO_MANY_CARDS', 'import');
    assertCode(await timed(() => send('POST', `/decks/${f.deckId}/cards`, `{"cards":${cards}}`)), 400, 'TOO_MANY_CARDS', 'append');
  });

  test('should refuse 100,000 unknown properties with SCHEMA_INVALID listing the first 100, without stalling /healthz', async () => {
    const keys = `{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
    for (const [method, path] of [['PATCH', `/decks/${f.deckId}`], ['POST', `/reviews/${sessionId}/complete`]] as const) {
      const res = await timed(() => send(method, path, keys));
      assertCode(res, 400, 'SCHEMA_INVALID', path);
      assert.equal(res.body.error.details.field, 'k0');
      assert.equal(res.body.error.details.errors.length, 100);
      assert.ok(res.text.length < 20_000, `${path}: a ${res.text.length}-character answer`);
    }
  });

  test('should refuse card tags and other lists far past their limits without validating each item', async () => {
    const many = (item: string, n: number) => `[${Array(n).fill(item).join(',')}]`;
    const cases: [string, string, string][] = [
      ['/decks/import', `{"deck":{"title":"T","tags":${many('1', 2_000_000)}},"cards":[{"front":"q"}]}`, 'deck.tags'],
      ['/decks/import', `{"deck":{"title":"T"},"cards":[{"front":"q","extras":{"tags":${many('1', 2_000_000)}}}]}`, 'cards[0].extras.tags'],
    ];
    for (const [path, body, field] of cases) {
      const res = await timed(() => send('POST', path, body));
      assertCode(res, 400, 'SCHEMA_INVALID', field);
      assert.equal(res.body.error.details.field, field);
      assert.equal(res.body.error.details.errors.length, 1);
    }
  });
});
