// The MCP endpoint with the SDK's own client over Streamable HTTP, against a real server on a real
// port (on SQLite, and on PostgreSQL + Redis in the second run): the tools do what their API routes
// do, through the same services, and every structured result matches the API operation's schema.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listTokenActivity } from '../../../src/modules/activity/activity.service.ts';
import { connectMcp, DECK_TOOLS, TOOL_OPERATIONS, ToolResultChecker, type McpSession } from '../../helpers/mcp.ts';
import { buildForSuite } from '../../helpers/server.ts';

const MARKDOWN = `---
version: 1
lang: en
visibility: private
tags: [chemistry]
---
# Elements

## Front
Symbol of gold?

## Back
**Au**

---

## Front
Symbol of iron?

## Back
**Fe**
`;

describe('MCP tools', () => {
  let mcp: McpSession;
  let checker: ToolResultChecker;
  let deckId: string;

  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    await mcp.close();
  });
  const suite = buildForSuite({ socket: true });
  before(async () => {
    checker = new ToolResultChecker(suite.server.app.apiDocument());
    mcp = await connectMcp(suite.server, suite.user.token, { checker });
  });

  test('should initialize with the server info, instructions and the tools, resources and prompts capabilities', () => {
    assert.equal(mcp.client.getServerVersion()?.name, 'flashdeck');
    const capabilities = mcp.client.getServerCapabilities();
    assert.ok(capabilities?.tools && capabilities.resources && capabilities.prompts);
    assert.match(mcp.client.getInstructions() ?? '', /idempotencyKey/);
  });

  test('should list the tools of DECISIONS with object schemas and truthful annotations', async () => {
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), Object.keys(TOOL_OPERATIONS).sort());
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.outputSchema?.type, 'object', tool.name);
      assert.ok((tool.description ?? '').length > 80, `${tool.name} has a description for a model`);
      assert.equal(tool.annotations?.openWorldHint, false, tool.name);
    }
    for (const name of ['whoami', 'get_capacity', 'list_decks', 'get_deck', 'get_review']) assert.equal(byName.get(name)?.annotations?.readOnlyHint, true, name);
    for (const name of ['import_deck', 'append_cards', 'update_deck', 'update_card', 'start_review', 'answer_card', 'complete_review']) {
      assert.equal(byName.get(name)?.annotations?.readOnlyHint, false, name);
    }
    assert.equal(byName.get('append_cards')?.annotations?.destructiveHint, false, 'append never changes existing cards');
    assert.equal(byName.get('import_deck')?.annotations?.destructiveHint, true, 'mode=update replaces the card list');
    assert.deepEqual(byName.get('append_cards')?.inputSchema.required, ['deckId', 'idempotencyKey', 'cards']);
    assert.deepEqual(byName.get('get_deck')?.inputSchema.required, ['deckId']);
    assert.equal(byName.get('list_decks')?.inputSchema.required, undefined, 'limit has a default, token is optional');
    assert.deepEqual(Object.keys(byName.get('import_deck')?.inputSchema.properties ?? {}).sort(),
      ['cards', 'csv', 'deck', 'idempotencyKey', 'ifMatch', 'lang', 'markdown', 'mode', 'targetDeckId', 'title']);
    assert.match(byName.get('append_cards')?.description ?? '', /reuse the same key/);
    assert.match(byName.get('update_card')?.description ?? '', /VERSION_MISMATCH/);
    assert.match(byName.get('import_deck')?.description ?? '', /about 80 characters/);
  });

  test('should import a deck from markdown and read it back as the API does', async () => {
    const imported = await mcp.call('import_deck', { markdown: MARKDOWN, idempotencyKey: 'import-elements-1' });
    assert.equal(imported.isError, undefined, JSON.stringify(imported.body));
    assert.equal(imported.body.mode, 'create');
    assert.equal(imported.body.cardCount, 2);
    assert.equal(imported.body.idempotencyKey, 'import-elements-1');
    deckId = imported.body.deckId;
    assert.match((imported.content[0] as { text: string }).text, /Created deck "Elements"/);

    const read = await mcp.call('get_deck', { deckId });
    const api = await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token });
    assert.deepEqual(read.body, api.body, 'structuredContent is the API response body');
    assert.deepEqual(read.body.tags, ['chemistry']);
    assert.match((read.content[0] as { text: string }).text, /"Elements" \(dck_\w+, 2 cards/);
  });

  test('should ask the deck version board as the API does, so a held deck is not read from the database', async () => {
    // On SQLite the board is this process's memory and its version comes from versionOf alone;
    // on Redis it comes from the admission's read: both stores go through versionOf.
    const board = suite.server.app.services.deckVersions;
    const asked: [string, string | null][] = [];
    const versionOf = board.versionOf.bind(board);
    board.versionOf = (id, value) => {
      const version = versionOf(id, value);
      asked.push([id, version]);
      return version;
    };
    try {
      const read = await mcp.call('get_deck', { deckId });
      const api = await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token });
      assert.deepEqual(read.body, api.body);
      assert.deepEqual(asked, [[deckId, api.body.version], [deckId, api.body.version]], 'both reads found the version held');
    } finally {
      board.versionOf = versionOf;
    }
  });

  test('should append once for a key retried, through MCP and through the API alike', async () => {
    const args = { deckId, idempotencyKey: 'append-noble-gases', cards: [{ front: 'Symbol of neon?', back: 'Ne' }] };
    const first = await mcp.call('append_cards', args);
    assert.equal(first.body.addedCount, 1);
    const retried = await mcp.call('append_cards', args);
    assert.deepEqual(retried.body, first.body, 'the retry returns the first result');
    assert.match((retried.content[0] as { text: string }).text, /replayed/);
    const api = await suite.server.api('POST', `/decks/${deckId}/cards`, {
      token: suite.user.token, json: { cards: args.cards }, headers: { 'idempotency-key': args.idempotencyKey },
    });
    assert.equal(api.status, 200);
    assert.equal(api.headers.get('idempotent-replayed'), 'true', 'the API sees the MCP call under the same key');
    assert.deepEqual(api.body, first.body);
    const deck = await mcp.call('get_deck', { deckId });
    assert.equal(deck.body.cardCount, 3, 'one append');

    const other = await mcp.call('append_cards', { ...args, cards: [{ front: 'Symbol of argon?', back: 'Ar' }] });
    assert.equal(other.isError, true);
    assert.equal(other.body.error.code, 'IDEMPOTENCY_CONFLICT');
    const missing = await mcp.call('append_cards', { deckId, cards: args.cards });
    assert.equal(missing.body.error.code, 'BAD_REQUEST');
    assert.equal(missing.body.error.details.field, 'idempotencyKey');
  });

  test('should update a card with the deck version and refuse a stale one with VERSION_MISMATCH', async () => {
    const deck = (await mcp.call('get_deck', { deckId })).body;
    const cardId = deck.cards[0].id;
    const updated = await mcp.call('update_card', { deckId, cardId, back: '**Au** (aurum)', ifMatch: deck.version });
    assert.equal(updated.isError, undefined, JSON.stringify(updated.body));
    assert.equal(updated.body.back, '**Au** (aurum)');
    const stale = await mcp.call('update_card', { deckId, cardId, back: 'Gold', ifMatch: deck.version });
    assert.equal(stale.isError, true);
    assert.equal(stale.body.error.code, 'VERSION_MISMATCH');
    assert.deepEqual(JSON.parse((stale.content[0] as { text: string }).text), stale.body, "an error's text is the API's envelope");
    assert.equal(stale.structuredContent, undefined, 'an error carries no structuredContent');
    const invalid = await mcp.call('update_card', { deckId, cardId, frontMedia: { imageUrl: 'http://example.com/a.png' } });
    assert.equal(invalid.body.error.code, 'SCHEMA_INVALID');
    assert.equal(invalid.body.error.details.field, 'frontMedia.imageUrl', 'the same field path as the API');
    const renamed = await mcp.call('update_deck', { deckId, title: 'Chemical elements' });
    assert.equal(renamed.body.title, 'Chemical elements');
    assert.equal(renamed.body.cards.length, 3);
    const empty = await mcp.call('update_deck', { deckId });
    assert.equal(empty.body.error.code, 'SCHEMA_INVALID');
  });

  test('should run a review loop to completion', async () => {
    const started = await mcp.call('start_review', { deckId, resume: true });
    const session = started.body;
    assert.equal(session.status, 'active');
    assert.equal(session.cards.length, 3);
    const ratings = ['good', 'again', 'easy'];
    for (const [i, cardId] of session.cards.entries()) {
      const answer = await mcp.call('answer_card', { sessionId: session.id, cardId, rating: ratings[i], durationMs: 1000 });
      assert.equal(answer.body.progress.answered, Number(i) + 1);
    }
    const conflict = await mcp.call('answer_card', { sessionId: session.id, cardId: session.cards[0], rating: 'hard' });
    assert.equal(conflict.body.error.code, 'ANSWER_CONFLICT');
    const read = await mcp.call('get_review', { sessionId: session.id });
    assert.equal(read.body.progress.remaining, 0);
    const completed = await mcp.call('complete_review', { sessionId: session.id });
    assert.equal(completed.body.status, 'completed');
    assert.equal(completed.body.stats.answered, 3);
    assert.equal(completed.body.stats.ratings.again, 1);
    const closed = await mcp.call('answer_card', { sessionId: session.id, cardId: session.cards[1], rating: 'good' });
    assert.equal(closed.body.error.code, 'SESSION_NOT_ACTIVE');
  });

  test('should answer the account tools and list decks with paging', async () => {
    const who = await mcp.call('whoami');
    assert.equal(who.body.userId, suite.user.userId);
    assert.equal(who.body.source, 'pat');
    const capacity = await mcp.call('get_capacity');
    assert.equal(capacity.body.current_decks, 1);
    await mcp.call('import_deck', { deck: { title: 'Second' }, cards: [{ front: 'Q', back: 'A' }], idempotencyKey: 'second-deck-1' });
    const page = await mcp.call('list_decks', { limit: 1 });
    assert.equal(page.body.items.length, 1);
    assert.equal(typeof page.body.nextToken, 'string');
    const next = await mcp.call('list_decks', { limit: 1, token: page.body.nextToken });
    assert.equal(next.body.items.length, 1);
    const tampered = await mcp.call('list_decks', { token: 'not-a-token' });
    assert.equal(tampered.body.error.code, 'BAD_REQUEST');
    const unknown = await mcp.call('whoami', { verbose: true });
    assert.equal(unknown.body.error.code, 'BAD_REQUEST', 'an argument the tool does not take');
  });

  test('should serve the deck markdown format and the content rules, and a prompt that makes a deck', async () => {
    const { resources } = await mcp.client.listResources();
    assert.deepEqual(resources.map((r) => r.uri).sort(), ['flashdeck://guides/content-rules', 'flashdeck://guides/deck-markdown']);
    const format = await mcp.client.readResource({ uri: 'flashdeck://guides/deck-markdown' });
    assert.match((format.contents[0] as { text: string }).text, /^# Deck markdown/);
    const rules = await mcp.client.readResource({ uri: 'flashdeck://guides/content-rules' });
    assert.match((rules.contents[0] as { text: string }).text, /about 80/);
    const { prompts } = await mcp.client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ['deck_from_topic']);
    const prompt = await mcp.client.getPrompt({ name: 'deck_from_topic', arguments: { topic: 'photosynthesis', cards: '12' } });
    const last = prompt.messages.at(-1)?.content as { text: string };
    assert.match(last.text, /12 cards about photosynthesis/);
    assert.match(last.text, /import_deck/);
    await assert.rejects(mcp.client.getPrompt({ name: 'deck_from_topic', arguments: { cards: '12' } }), /topic argument is required/);
    assert.deepEqual((await mcp.client.listResourceTemplates()).resourceTemplates, []);
  });

  test('should read, move, update in bulk and delete cards as the API does, and carry requestId in a tool error', async () => {
    const made = await mcp.call('import_deck', { deck: { title: 'Card tools' }, cards: [{ front: 'a', back: '1' }, { front: 'b', back: '2' }, { front: 'c', back: '3' }] });
    const id = made.body.deckId as string;
    const cards = (await suite.server.api('GET', `/decks/${id}`, { token: suite.user.token })).body.cards as { id: string }[];
    const one = await mcp.call('get_card', { deckId: id, cardId: cards[1].id });
    assert.deepEqual(one.body, (await suite.server.api('GET', `/decks/${id}/cards/${cards[1].id}`, { token: suite.user.token })).body);
    const moved = await mcp.call('move_card', { deckId: id, cardId: cards[2].id, order: 0 });
    assert.equal(moved.body.card.order, 0);
    const bulk = await mcp.call('update_cards', { deckId: id, cards: [{ id: cards[0].id, back: 'one' }, { id: cards[1].id, back: 'two' }], idempotencyKey: 'mcp-bulk-1' });
    assert.deepEqual(bulk.body.cards.map((c: { back: string }) => c.back), ['one', 'two']);
    const replay = await suite.server.api('PATCH', `/decks/${id}/cards`, {
      token: suite.user.token, json: { cards: [{ id: cards[0].id, back: 'one' }, { id: cards[1].id, back: 'two' }] }, headers: { 'idempotency-key': 'mcp-bulk-1' },
    });
    assert.equal(replay.headers.get('idempotent-replayed'), 'true', 'the API sees the MCP call under the same key');
    const deleted = await mcp.call('delete_card', { deckId: id, cardId: cards[2].id, ifMatch: bulk.body.version });
    assert.equal(deleted.body.cardCount, 2);
    const missing = await mcp.call('get_card', { deckId: id, cardId: cards[2].id });
    assert.equal(missing.isError, true);
    assert.equal(missing.body.error.code, 'CARD_NOT_FOUND');
    assert.match(missing.body.error.requestId, /^[0-9a-f-]{36}$/, 'the tool error carries the call\'s request id');
  });

  test('should say what is due, give a deck\'s schedule and list sessions as the API does', async () => {
    const deckId = (await mcp.call('import_deck', { deck: { title: 'Due tools' }, cards: [{ front: 'x', back: '1' }, { front: 'y', back: '2' }] })).body.deckId as string;
    const session = await mcp.call('start_review', { deckId, relearn: true, idempotencyKey: 'mcp-start-1' });
    assert.equal(session.body.relearn, true);
    assert.equal(session.body.next.id, session.body.cards[0]);
    const answered = await mcp.call('answer_card', { sessionId: session.body.id, cardId: session.body.cards[0], rating: 'again' });
    assert.equal(answered.body.progress.total, (session.body.cards as string[]).length + 1, 'again came back at the end');
    const due = await mcp.call('list_due', {});
    assert.deepEqual(due.body, (await suite.server.api('GET', '/reviews/due', { token: suite.user.token })).body);
    const schedule = await mcp.call('get_schedule', { deckId });
    assert.equal(schedule.body.cards.find((c: { cardId: string }) => c.cardId === session.body.cards[0]).state, 'learning');
    const sessions = await mcp.call('list_reviews', { deckId, limit: 1 });
    assert.equal(sessions.body.sessions[0].id, session.body.id);
    assert.deepEqual(sessions.body, (await suite.server.api('GET', `/reviews?deckId=${deckId}&limit=1`, { token: suite.user.token })).body);
  });

  test('should record every tool call in the token activity log as mcp:<tool>', async () => {
    await suite.server.app.activity.flush();
    const entries = await listTokenActivity(suite.server.app.services, { tokenId: suite.user.tokenId, limit: 1000 });
    const mcpEntries = entries.filter((e) => e.route.startsWith('mcp:'));
    const routes = new Set(mcpEntries.map((e) => e.route));
    for (const tool of Object.keys(TOOL_OPERATIONS).filter((t) => !DECK_TOOLS.includes(t))) assert.ok(routes.has(`mcp:${tool}`), `mcp:${tool} recorded`);
    const read = mcpEntries.find((e) => e.route === 'mcp:get_deck' && e.status === 200);
    assert.equal(read?.deckId, deckId);
    assert.equal(read?.method, 'POST');
    assert.equal(read?.userAgent, 'mcp-test/1.0');
    assert.ok(mcpEntries.some((e) => e.route === 'mcp:update_card' && e.status === 412 && e.errorCode === 'VERSION_MISMATCH'), 'a refused call is recorded with its status and error code');
    assert.equal(read?.errorCode, null, 'a success has no error code');
    assert.ok(mcpEntries.some((e) => e.route === 'mcp:import_deck' && e.status === 201 && e.deckId === deckId));
  });

  test("should have checked every tool's results against its API operation's schema", () => {
    assert.deepEqual([...checker.succeeded].sort(), Object.keys(TOOL_OPERATIONS).filter((t) => !DECK_TOOLS.includes(t)).sort());
  });

  test('should import a deck from CSV, as the API does, and refuse csv beside markdown', async () => {
    const csv = 'front,back,tags\nH,Hydrogen,elements gas\nHe,Helium,\n';
    const imported = await mcp.call('import_deck', { csv, title: 'Elements from CSV', idempotencyKey: 'import-csv-1' });
    assert.equal(imported.isError, undefined, JSON.stringify(imported.body));
    assert.equal(imported.body.cardCount, 2);
    assert.equal(imported.body.title, 'Elements from CSV');
    const viaApi = await suite.server.api('POST', '/decks/import?title=Elements%20from%20CSV', { token: suite.user.token, body: csv, headers: { 'content-type': 'text/csv' } });
    const [a, b] = await Promise.all([imported.body.deckId, viaApi.body.deckId].map(async (id: string) => (await suite.server.api('GET', `/decks/${id}`, { token: suite.user.token })).body));
    const cards = (deck: { cards: { id: string }[] }) => deck.cards.map(({ id: _id, ...rest }) => rest);
    assert.deepEqual(cards(a), cards(b));
    const both = await mcp.call('import_deck', { csv, markdown: MARKDOWN });
    assert.equal(both.isError, true);
  });

});
