// Generated bad requests against every write route: the answer is always a 4xx with the error
// envelope (server.api checks the envelope and the OpenAPI document), and the store is unchanged.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import fc from 'fast-check';
import { badAppendBody, badCardPatch, badDeckPatch, badImportBody, badMarkdown } from '../helpers/bad-inputs.ts';
import { card, deckMeta, importBody, markdownOf, type Json } from '../helpers/deck-arbitraries.ts';
import { createDeck, type TestUser, buildForSuite } from '../helpers/server.ts';

const RUNS = 150;

interface Attempt {
  method: string;
  path: string;
  json?: Json;
  markdown?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

const printable = (min: number, max: number, from = 0x20) => fc.string({
  unit: fc.integer({ min: from, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: min, maxLength: max,
});
/** Idempotency-Key and If-Match, mostly well formed so the body is what gets judged. */
const anyHeaders = fc.oneof(
  { weight: 3, arbitrary: fc.constant({}) },
  { weight: 2, arbitrary: fc.record({ 'idempotency-key': printable(8, 128, 0x21) }) },
  { weight: 1, arbitrary: fc.record({ 'idempotency-key': printable(0, 140), 'if-match': printable(0, 40) }, { requiredKeys: [] }) },
);
const badKeyLength = fc.oneof(printable(1, 7, 0x21), printable(129, 200, 0x21));
/** A query string of random parameters, never touching the ones the route reads. */
const noiseQuery = fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 12 }), { maxKeys: 3 })
  .map((d) => Object.entries(d).filter(([k]) => k !== 'mode' && k !== 'targetDeckId'));
const query = (pairs: [string, string][]) => (pairs.length === 0 ? '' : `?${new URLSearchParams(pairs).toString()}`);
const badMode = fc.string({ maxLength: 12 }).filter((m) => m !== 'create' && m !== 'update');
const unknownId = fc.stringMatching(/^[\w-]{1,40}$/).map((s) => `x${s}`);
const OTHER_TYPES = ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'text/html', 'application/octet-stream', 'text/x-markdown', 'application/jsonx'];

describe('fuzzed write requests', () => {
  let user: TestUser;
  let deckId: string;
  let cardId: string;
  let fullDeckId: string;
  let version: string;
  let baseline: string;

  async function snapshot(): Promise<string> {
    const list = await suite.server.api('GET', '/decks?limit=100', { token: user.token });
    const deck = await suite.server.api('GET', `/decks/${deckId}`, { token: user.token });
    assert.equal(list.status, 200);
    assert.equal(deck.status, 200);
    return `${list.text}\n${deck.text}`;
  }

  const suite = buildForSuite();
  before(async () => {
    user = await suite.server.user();
    ({ deckId, version } = await createDeck(suite.server, user.token, 3, 'fuzz target'));
    ({ deckId: fullDeckId } = await createDeck(suite.server, user.token, 249, 'nearly full'));
    cardId = (await suite.server.api('GET', `/decks/${deckId}`, { token: user.token })).body.cards[1].id;
    baseline = await snapshot();
  });

  /**
   * A stale If-Match: no member of the comma-separated list (RFC 9110, as the API reads it) is `*`
   * or the deck's version once unquoted. A random `x,*` holds, and once let through it changed the
   * deck, so every later check of the run, and its shrinking, reported a changed store.
   */
  const staleVersion = () => fc.oneof(fc.constant('2001-01-01T00:00:00.000Z'), printable(0, 40)).filter((v) => v.split(',').every((part) => {
    const normalised = part.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
    return normalised !== '*' && normalised !== version;
  }));

  async function assertRefused(attempt: Attempt): Promise<void> {
    const headers: Record<string, string> = { ...attempt.headers };
    let body: string | undefined;
    if (attempt.markdown !== undefined) {
      body = attempt.markdown;
      headers['content-type'] = attempt.contentType ?? 'text/markdown';
    } else if (attempt.json !== undefined) {
      body = JSON.stringify(attempt.json);
      headers['content-type'] = attempt.contentType ?? 'application/json';
    }
    const res = await suite.server.api(attempt.method, attempt.path, { token: user.token, body, headers });
    assert.ok(res.status >= 400 && res.status < 500, `expected a 4xx, got ${res.status}: ${res.text.slice(0, 300)}`);
    assert.equal(res.headers.get('idempotent-replayed'), null);
    assert.equal(await snapshot(), baseline, `the store changed after a refused request (${res.status} ${res.body.error.code})`);
  }

  const run = (arbitrary: fc.Arbitrary<Attempt>) => fc.assert(fc.asyncProperty(arbitrary, assertRefused), { numRuns: RUNS });

  test('PATCH /decks/{deckId} should refuse bad bodies and stale If-Match with a 4xx and change nothing', async () => {
    const path = () => `/decks/${deckId}`;
    await run(fc.oneof(
      { weight: 4, arbitrary: fc.record({ json: badDeckPatch, headers: anyHeaders }).map((a) => ({ method: 'PATCH', path: path(), ...a })) },
      { weight: 1, arbitrary: fc.tuple(deckMeta, staleVersion()).map(([json, v]) => ({ method: 'PATCH', path: path(), json, headers: { 'if-match': v } })) },
    ));
  });

  test('POST /decks/{deckId}/cards should refuse bad bodies, bad keys, stale If-Match and overflow with a 4xx and change nothing', async () => {
    const path = () => `/decks/${deckId}/cards`;
    const goodCards = fc.array(card, { minLength: 1, maxLength: 3 });
    await run(fc.oneof(
      { weight: 5, arbitrary: fc.record({ json: badAppendBody, headers: anyHeaders }).map((a) => ({ method: 'POST', path: path(), ...a })) },
      { weight: 1, arbitrary: fc.tuple(goodCards, badKeyLength).map(([cards, key]) => ({ method: 'POST', path: path(), json: { cards }, headers: { 'idempotency-key': key } })) },
      { weight: 1, arbitrary: fc.tuple(goodCards, staleVersion()).map(([cards, v]) => ({ method: 'POST', path: path(), json: { cards }, headers: { 'if-match': v } })) },
      // The nearly full deck has room for one card.
      { weight: 1, arbitrary: fc.array(card, { minLength: 2, maxLength: 5 }).map((cards) => ({ method: 'POST', path: `/decks/${fullDeckId}/cards`, json: { cards } })) },
      { weight: 1, arbitrary: fc.tuple(goodCards, fc.constantFrom(...OTHER_TYPES)).map(([cards, contentType]) => ({ method: 'POST', path: path(), json: { cards }, contentType })) },
    ));
  });

  test('PATCH /decks/{deckId}/cards/{cardId} should refuse bad bodies, unknown cards and stale If-Match with a 4xx and change nothing', async () => {
    const path = () => `/decks/${deckId}/cards/${cardId}`;
    await run(fc.oneof(
      { weight: 5, arbitrary: fc.record({ json: badCardPatch, headers: anyHeaders }).map((a) => ({ method: 'PATCH', path: path(), ...a })) },
      { weight: 1, arbitrary: fc.tuple(card, unknownId).map(([json, id]) => ({ method: 'PATCH', path: `/decks/${deckId}/cards/${id}`, json })) },
      { weight: 1, arbitrary: fc.tuple(card, staleVersion()).map(([json, v]) => ({ method: 'PATCH', path: path(), json, headers: { 'if-match': v } })) },
    ));
  });

  test('POST /decks/import (JSON, create) should refuse bad bodies, modes, keys and content types with a 4xx and change nothing', async () => {
    await run(fc.oneof(
      { weight: 5, arbitrary: fc.record({ json: badImportBody, headers: anyHeaders, q: noiseQuery }).map(({ q, ...a }) => ({ method: 'POST', path: `/decks/import${query(q)}`, ...a })) },
      { weight: 1, arbitrary: fc.tuple(importBody, badMode, noiseQuery).map(([json, mode, q]) => ({ method: 'POST', path: `/decks/import${query([['mode', mode], ...q])}`, json })) },
      { weight: 1, arbitrary: fc.tuple(importBody, badKeyLength).map(([json, key]) => ({ method: 'POST', path: '/decks/import', json, headers: { 'idempotency-key': key } })) },
      { weight: 1, arbitrary: fc.tuple(importBody, fc.constantFrom(...OTHER_TYPES)).map(([json, contentType]) => ({ method: 'POST', path: '/decks/import', json, contentType })) },
    ));
  });

  test('POST /decks/import (JSON, update) should refuse bad bodies, targets and stale If-Match with a 4xx and change nothing', async () => {
    const path = () => `/decks/import?mode=update&targetDeckId=${deckId}`;
    await run(fc.oneof(
      { weight: 5, arbitrary: fc.record({ json: badImportBody, headers: anyHeaders }).map((a) => ({ method: 'POST', path: path(), ...a })) },
      { weight: 1, arbitrary: fc.tuple(importBody, staleVersion()).map(([json, v]) => ({ method: 'POST', path: path(), json, headers: { 'if-match': v } })) },
      { weight: 1, arbitrary: fc.tuple(importBody, unknownId).map(([json, id]) => ({ method: 'POST', path: `/decks/import?mode=update&targetDeckId=${id}`, json })) },
      { weight: 1, arbitrary: fc.tuple(importBody, noiseQuery).map(([json, q]) => ({ method: 'POST', path: `/decks/import${query([['mode', 'update'], ...q])}`, json })) },
    ));
  });

  test('POST /decks/import (markdown, create) should refuse bad documents with a 4xx and change nothing', async () => {
    await run(fc.oneof(
      { weight: 5, arbitrary: fc.record({ markdown: badMarkdown, headers: anyHeaders }).map((a) => ({ method: 'POST', path: '/decks/import', ...a })) },
      { weight: 1, arbitrary: fc.tuple(importBody, fc.constantFrom(...OTHER_TYPES)).map(([b, contentType]) => ({ method: 'POST', path: '/decks/import', markdown: markdownOf(b), contentType })) },
    ));
  });

  // Found by the properties above: a self-referencing alias used to overflow the stack (500).
  test('should refuse a recursive YAML alias with PARSE_FAILED naming its line', async () => {
    const documents: [string, number][] = [
      ['---\nversion: 1\nx: &a [*a]\n---\n# T\n\n## Front\nq\n', 3],
      ['---\nversion: 1\n---\n# T\n\n<!-- card\nextras: {templateData: &t {a: [*t]}}\n-->\n## Front\nq\n', 7],
    ];
    for (const [markdown, line] of documents) {
      const res = await suite.server.api('POST', '/decks/import', { token: user.token, body: markdown, headers: { 'content-type': 'text/markdown' } });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'PARSE_FAILED');
      assert.equal(res.body.error.details.line, line);
    }
    assert.equal(await snapshot(), baseline);
  });

  test('POST /decks/import (markdown, update) should refuse bad documents and stale If-Match with a 4xx and change nothing', async () => {
    const path = () => `/decks/import?mode=update&targetDeckId=${deckId}`;
    await run(fc.oneof(
      { weight: 5, arbitrary: fc.record({ markdown: badMarkdown, headers: anyHeaders }).map((a) => ({ method: 'POST', path: path(), ...a })) },
      { weight: 1, arbitrary: fc.tuple(importBody, staleVersion()).map(([b, v]) => ({ method: 'POST', path: path(), markdown: markdownOf(b), headers: { 'if-match': v } })) },
    ));
  });
});
