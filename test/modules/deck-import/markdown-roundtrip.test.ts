import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import fc from 'fast-check';
import { importBody, markdownOf } from '../../helpers/deck-arbitraries.ts';
import { type TestUser, buildForSuite } from '../../helpers/server.ts';

/** A deck as GET returns it, minus what differs between two decks with the same content. */
function content(deck: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, version: _v, createdAt: _c, updatedAt: _u, previewUrl: _p, editUrl: _e, cards, ...rest } = deck;
  return { ...rest, cards: (cards as Record<string, unknown>[]).map(({ id: _cardId, ...card }) => card) };
}

describe('deck markdown over HTTP', () => {
  let user: TestUser;
  const suite = buildForSuite({ env: { DECK_LIMIT: 'none' } });
  before(async () => {
    // Each property run creates decks: lift the per-user limit.
    user = await suite.server.user();
  });

  const importJson = (body: unknown, query = '') => suite.server.api('POST', `/decks/import${query}`, { token: user.token, json: body });
  const importMarkdown = (markdown: string, query = '') => suite.server.api('POST', `/decks/import${query}`, {
    token: user.token, body: markdown, headers: { 'content-type': 'text/markdown; charset=utf-8' },
  });
  const getDeck = (deckId: string) => suite.server.api('GET', `/decks/${deckId}`, { token: user.token });

  test('should give back the same deck after export to markdown and import, and change nothing on update', async () => {
    await fc.assert(fc.asyncProperty(importBody, async (body) => {
      const created = await importJson(body);
      assert.equal(created.status, 201, created.text);
      const original = await getDeck(created.body.deckId);
      const exported = await suite.server.api('GET', `/decks/${created.body.deckId}`, { token: user.token, headers: { accept: 'text/markdown' } });
      assert.equal(exported.status, 200);
      assert.match(exported.headers.get('content-type') ?? '', /^text\/markdown/);

      const reimported = await importMarkdown(exported.text);
      assert.equal(reimported.status, 201, `${reimported.text}\n${exported.text}`);
      const copy = await getDeck(reimported.body.deckId);
      assert.deepEqual(content(copy.body), content(original.body), exported.text);

      const update = await importMarkdown(exported.text, `?mode=update&targetDeckId=${created.body.deckId}`);
      assert.equal(update.status, 200, update.text);
      assert.equal(update.body.version, original.body.version, 'an update with the exported deck must not move version');
      assert.equal((await getDeck(created.body.deckId)).text, original.text);
    }), { numRuns: 50 });
  });

  test('should give the same deck and the same warnings for a markdown document and the equivalent JSON', async () => {
    await fc.assert(fc.asyncProperty(importBody, async (body) => {
      const markdown = markdownOf(body);
      const fromJson = await importJson(body);
      const fromMarkdown = await importMarkdown(markdown);
      assert.equal(fromJson.status, 201, fromJson.text);
      assert.equal(fromMarkdown.status, 201, `${fromMarkdown.text}\n${markdown}`);
      assert.deepEqual(fromMarkdown.body.warnings, fromJson.body.warnings);
      const [a, b] = await Promise.all([getDeck(fromJson.body.deckId), getDeck(fromMarkdown.body.deckId)]);
      assert.deepEqual(content(b.body), content(a.body), markdown);
    }), { numRuns: 50 });
  });

  test('should keep card ids when an exported deck is imported back as an update after an edit', async () => {
    const created = await importJson({ deck: { title: 'Edited', lang: 'en' }, cards: [{ front: 'one' }, { front: 'two' }] });
    const before = await getDeck(created.body.deckId);
    const exported = await suite.server.api('GET', `/decks/${created.body.deckId}`, { token: user.token, headers: { accept: 'text/markdown' } });
    const edited = `${exported.text}\n---\n\n## Front\nthree\n`;
    const update = await importMarkdown(edited, `?mode=update&targetDeckId=${created.body.deckId}`);
    assert.equal(update.status, 200, update.text);
    assert.notEqual(update.body.version, before.body.version);
    const after = await getDeck(created.body.deckId);
    assert.deepEqual(after.body.cards.slice(0, 2), before.body.cards);
    assert.equal(after.body.cards[2].front, 'three');
  });
});
