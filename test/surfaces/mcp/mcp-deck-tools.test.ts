// The deck lifecycle, public deck and connector tools through the SDK's client, each result checked
// against its API operation (or its own shape: test/helpers/mcp.ts OWN_RESULTS).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectMcp, DECK_TOOLS, ToolResultChecker, type McpSession } from '../../helpers/mcp.ts';
import { type TestUser, buildForSuite } from '../../helpers/server.ts';

describe('MCP: deck lifecycle, public decks, search and fetch', () => {
  let user: TestUser;
  let other: TestUser;
  let checker: ToolResultChecker;
  let mcp: McpSession;
  let otherMcp: McpSession;
  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    await mcp.close();
    await otherMcp.close();
  });
  const suite = buildForSuite({ socket: true });
  before(async () => {
    user = await suite.server.user();
    other = await suite.server.user();
    checker = new ToolResultChecker(suite.server.app.apiDocument());
    mcp = await connectMcp(suite.server, user.token, { checker });
    otherMcp = await connectMcp(suite.server, other.token, { checker });
  });

  async function importDeck(session: McpSession, title: string, visibility = 'private'): Promise<string> {
    const res = await session.call('import_deck', {
      deck: { title, lang: 'en', visibility }, cards: [{ front: `${title} question`, back: 'the narwhal answer' }], idempotencyKey: `import-${title.replaceAll(' ', '-')}`,
    });
    assert.equal(res.isError, undefined, JSON.stringify(res.body));
    return res.body.deckId as string;
  }

  test('should delete a deck into the trash, list the trash and restore it', async () => {
    const deckId = await importDeck(mcp, 'Trash me');
    const deleted = await mcp.call('delete_deck', { deckId });
    assert.equal(deleted.isError, undefined, JSON.stringify(deleted.body));
    assert.deepEqual(deleted.body, { deckId, deleted: true });
    const read = await mcp.call('get_deck', { deckId });
    assert.equal(read.isError, true);
    assert.equal(read.body.error.code, 'DECK_NOT_FOUND');
    const trash = await mcp.call('list_trash', {});
    assert.deepEqual(trash.body.decks.map((d: { id: string }) => d.id), [deckId]);
    const restored = await mcp.call('restore_deck', { deckId });
    assert.equal(restored.body.id, deckId);
    assert.equal(restored.body.cards.length, 1);
    const refused = await otherMcp.call('delete_deck', { deckId });
    assert.equal(refused.body.error.code, 'DECK_FORBIDDEN');
  });

  test('should export a deck as markdown that imports back', async () => {
    const deckId = await importDeck(mcp, 'Export me');
    const exported = await mcp.call('export_deck_markdown', { deckId });
    assert.equal(exported.body.deckId, deckId);
    assert.match(exported.body.markdown, /Export me/);
    const again = await mcp.call('import_deck', { markdown: exported.body.markdown, idempotencyKey: 'reimport-export-me' });
    assert.equal(again.isError, undefined, JSON.stringify(again.body));
    assert.equal(again.body.cardCount, 1);
  });

  test('should list, read and copy public decks, and never a private one', async () => {
    const publicId = await importDeck(otherMcp, 'Public walrus', 'public');
    const privateId = await importDeck(otherMcp, 'Private walrus');
    const list = await mcp.call('list_public_decks', { q: 'walrus' });
    assert.deepEqual(list.body.decks.map((d: { id: string }) => d.id), [publicId]);
    const read = await mcp.call('get_public_deck', { deckId: publicId });
    assert.equal(read.body.cards.length, 1);
    assert.equal((await mcp.call('get_public_deck', { deckId: privateId })).body.error.code, 'DECK_NOT_FOUND');
    const copy = await mcp.call('copy_public_deck', { deckId: publicId, idempotencyKey: 'copy-walrus-1' });
    assert.equal(copy.body.copiedFrom, publicId);
    const replay = await mcp.call('copy_public_deck', { deckId: publicId, idempotencyKey: 'copy-walrus-1' });
    assert.equal(replay.body.id, copy.body.id);
    assert.equal((await mcp.call('copy_public_deck', { deckId: privateId })).body.error.code, 'DECK_NOT_FOUND');
  });

  test("should search the user's decks and cards and fetch either by id, in the connectors' shape", async () => {
    const deckId = await importDeck(mcp, 'Narwhal facts');
    const found = await mcp.call('search', { query: 'narwhal' });
    const ids = found.body.results.map((r: { id: string }) => r.id);
    assert.ok(ids.includes(deckId), JSON.stringify(found.body));
    const cardResult = found.body.results.find((r: { id: string }) => r.id.startsWith('crd_'));
    assert.ok(cardResult);
    assert.equal(found.body.results.find((r: { id: string }) => r.id === deckId).url, `${suite.server.config.publicUrl}/decks/${deckId}`);
    const deck = await mcp.call('fetch', { id: deckId });
    assert.equal(deck.body.title, 'Narwhal facts');
    assert.match(deck.body.text, /narwhal answer/);
    assert.equal(deck.body.url, `${suite.server.config.publicUrl}/decks/${deckId}`);
    assert.equal(deck.body.metadata.type, 'deck');
    const card = await mcp.call('fetch', { id: cardResult.id });
    assert.match(card.body.text, /Front:\n/);
    assert.equal(card.body.metadata.type, 'card');
    assert.equal((await otherMcp.call('fetch', { id: deckId })).body.error.code, 'DECK_NOT_FOUND');
    assert.equal((await otherMcp.call('fetch', { id: cardResult.id })).body.error.code, 'DECK_NOT_FOUND');
    assert.deepEqual((await otherMcp.call('search', { query: 'narwhal' })).body.results.filter((r: { id: string }) => r.id === deckId), []);
    assert.equal((await mcp.call('search', { query: '"'.repeat(200) })).isError, undefined);
    assert.equal((await mcp.call('search', { query: '' })).body.error.code, 'BAD_REQUEST');
  });

  test("should give search and fetch results as JSON in their one text content, where ChatGPT's connectors read them", async () => {
    const deckId = await importDeck(mcp, 'Beluga facts');
    const found = await mcp.call('search', { query: 'beluga' });
    assert.equal(found.content.length, 1);
    assert.equal(found.content[0]?.type, 'text');
    assert.deepEqual(JSON.parse(found.content[0]?.text ?? ''), found.body);
    assert.ok(found.body.results.some((r: { id: string }) => r.id === deckId), JSON.stringify(found.body));
    for (const id of found.body.results.map((r: { id: string }) => r.id)) {
      const fetched = await mcp.call('fetch', { id });
      assert.equal(fetched.content.length, 1);
      assert.deepEqual(JSON.parse(fetched.content[0]?.text ?? ''), fetched.body, id);
    }
  });

  test("should have checked every one of these tools' results", () => {
    assert.deepEqual([...checker.succeeded].filter((t) => DECK_TOOLS.includes(t)).sort(), [...DECK_TOOLS].sort());
  });
});
