// The one-line text beside each tool's structuredContent (each tool's `summary`, in its entry in
// src/surfaces/mcp/tools.ts and deck-tools.ts; every tool has one): the line of each tool, through
// a deck's life, the trash and public decks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectMcp, type McpSession } from '../../helpers/mcp.ts';
import { buildForSuite } from '../../helpers/server.ts';

const MARKDOWN = '---\nversion: 1\nlang: en\n---\n# Elements\n\n## Front\nGold?\n\n## Back\nAu\n\n---\n\n## Front\nIron?\n\n## Back\nFe\n';

describe('MCP tool summaries', () => {
  let mcp: McpSession;
  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    await mcp.close();
  });
  const suite = buildForSuite({ socket: true });
  before(async () => {
    mcp = await connectMcp(suite.server, suite.user.token);
  });

  async function line(tool: string, args: Record<string, unknown> = {}): Promise<{ text: string; body: any }> {
    const result = await mcp.call(tool, args);
    assert.equal(result.isError, undefined, `${tool}: ${JSON.stringify(result.body)}`);
    return { text: (result.content[0] as { text: string }).text, body: result.body };
  }

  test('should say what each tool did in one line', async () => {
    assert.match((await line('whoami')).text, new RegExp(`^Token ".+" \\(\\S+, pat\\) of user ${suite.user.userId}; scopes: decks:read, .+$`));
    assert.match((await line('get_capacity')).text, /^0 decks of (\d+|unlimited); another deck can be created$/);
    const imported = await line('import_deck', { markdown: MARKDOWN, idempotencyKey: 'summaries-import' });
    const deckId: string = imported.body.deckId;
    assert.equal(imported.text, `Created deck "Elements" (${deckId}) with 2 cards, version ${imported.body.version}; view it at ${imported.body.previewUrl}`);
    const listed = await line('list_decks');
    assert.equal(listed.text, `1 decks: "Elements" (${deckId}, 2 cards, version ${imported.body.version})`);
    assert.equal((await line('get_deck', { deckId })).text, `Deck "Elements" (${deckId}, 2 cards, version ${imported.body.version}); the cards are in structuredContent.cards`);
    const appendArgs = { deckId, idempotencyKey: 'summaries-append', cards: [{ front: 'Neon?', back: 'Ne' }] };
    const appended = await line('append_cards', appendArgs);
    assert.equal(appended.text, `Appended 1 cards to deck ${deckId}: now 3 cards, version ${appended.body.version}`);
    assert.equal((await line('append_cards', appendArgs)).text, `${appended.text} (replayed: the first call with this idempotencyKey already did this; nothing was done again)`);
    const renamed = await line('update_deck', { deckId, title: 'Metals' });
    assert.equal(renamed.text, `Deck "Metals" (${deckId}, 3 cards, version ${renamed.body.version}) as it now is`);
    const cardId: string = (await line('get_deck', { deckId })).body.cards[0].id;
    assert.equal((await line('get_card', { deckId, cardId })).text, `Card ${cardId} at position 0`);
    assert.equal((await line('update_card', { deckId, cardId, front: 'Gold, symbol?' })).text, `Card ${cardId} (position 0) as it now is`);
    const moved = await line('move_card', { deckId, cardId, order: 2 });
    assert.equal(moved.text, `Card ${cardId} is now at position 2; deck version ${moved.body.version}`);
    const patched = await line('update_cards', { deckId, cards: [{ id: cardId, back: 'Au (aurum)' }] });
    assert.equal(patched.text, `1 cards of deck ${deckId} as they now are; version ${patched.body.version}`);
    const deleted = await line('delete_card', { deckId, cardId });
    assert.equal(deleted.text, `Deleted; deck ${deckId} now has 2 cards, version ${deleted.body.version}`);
    assert.equal((await line('list_due')).text, '0 cards due and 2 new across 1 decks');
    assert.equal((await line('get_schedule', { deckId })).text, `2 cards of deck ${deckId}; 2 never reviewed`);
    const started = await line('start_review', { deckId });
    const sessionId: string = started.body.id;
    const session = `Session ${sessionId} for deck ${deckId} is ${started.body.status}`;
    assert.equal(started.text, `${session}: 0 of 2 cards answered; next card ${started.body.next.id} (in structuredContent.next)`);
    assert.equal((await line('get_review', { sessionId })).text, `${session}: 0 of 2 cards answered`);
    const answered = await line('answer_card', { sessionId, cardId: started.body.next.id, rating: 'good' });
    assert.equal(answered.text, `Recorded good for card ${started.body.next.id}; 1 of 2 answered, 1 remaining; next due ${answered.body.nextDue}; next card ${answered.body.next.id}`);
    assert.equal((await line('list_reviews')).text, '1 sessions');
    const completed = await line('complete_review', { sessionId });
    assert.match(completed.text, new RegExp(`^Session ${sessionId} for deck ${deckId} is ${completed.body.status}: 1 of 2 cards answered(; accuracy \\d+%)?$`));
    const exported = await line('export_deck_markdown', { deckId });
    assert.equal(exported.text, `Deck ${deckId} (version ${exported.body.version}) as deck markdown, ${exported.body.markdown.length} characters, in structuredContent.markdown`);
    assert.equal((await line('delete_deck', { deckId })).text, `Deck ${deckId} is in the trash: missing from every list, read and search; restore_deck brings it back whole within 30 days`);
    assert.equal((await line('list_trash')).text, '1 decks in the trash, each restorable until its purgeAt');
    const restored = await line('restore_deck', { deckId });
    assert.equal(restored.text, `Deck "Metals" (${deckId}, 2 cards, version ${restored.body.version}) is back from the trash with its cards and review history`);
    assert.equal((await line('list_trash')).text, '0 decks in the trash');
  });

  test('should say what each public-deck tool found or made in one line', async () => {
    const author = await suite.server.user();
    const made = await suite.server.api('POST', '/decks/import', { token: author.token, json: { deck: { title: 'Noble gases', lang: 'en', visibility: 'public' }, cards: [{ front: 'He?', back: 'Helium' }] } });
    assert.equal(made.status, 201, made.text);
    const publicId: string = made.body.deckId;
    assert.match((await line('list_public_decks', { q: 'noble' })).text, new RegExp(`^1 public decks: "Noble gases" \\(${publicId}\\)$`));
    assert.equal((await line('get_public_deck', { deckId: publicId })).text, `Public deck "Noble gases" (${publicId}, 1 cards); the cards are in structuredContent.cards; copy_public_deck makes it yours`);
    const copied = await line('copy_public_deck', { deckId: publicId, idempotencyKey: 'summaries-copy' });
    assert.equal(copied.text, `Copied into your decks as "Noble gases" (${copied.body.id}, private, 1 cards), from public deck ${publicId}`);
  });
});
