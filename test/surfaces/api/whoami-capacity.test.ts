import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ALL_SCOPES, createDeck, deckBody, buildForSuite } from '../../helpers/server.ts';

describe('GET /whoami', () => {
  const suite = buildForSuite();

  test('should identify the calling personal access token', async () => {
    const user = await suite.server.user();
    const res = await suite.server.api('GET', '/whoami', { token: user.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.userId, user.userId);
    assert.equal(res.body.source, 'pat');
    assert.deepEqual([...res.body.scopes].sort(), [...ALL_SCOPES].sort());
    assert.equal(res.body.token.id, user.tokenId);
    assert.equal(res.body.token.name, 'test token');
    assert.match(user.token, new RegExp(`^svc_pat_${res.body.token.prefix}_`));
    assert.equal(res.body.token.prefix.length, 10);
  });

  test('should return exactly the scopes of the presented token', async () => {
    const user = await suite.server.user({ scopes: ['reviews:read', 'decks:read'] });
    const res = await suite.server.api('GET', '/whoami', { token: user.token });
    assert.equal(res.status, 200);
    assert.deepEqual([...res.body.scopes].sort(), ['decks:read', 'reviews:read']);
  });

  test('should name the token that called when a user has several', async () => {
    const user = await suite.server.user();
    const second = await suite.server.token(user.email, ['decks:read'], 'second token');
    const res = await suite.server.api('GET', '/whoami', { token: second.token });
    assert.equal(res.body.token.id, second.tokenId);
    assert.equal(res.body.token.name, 'second token');
    assert.equal(res.body.userId, user.userId);
  });
});

describe('GET /decks/capacity', () => {
  const suite = buildForSuite();

  test('should report the default limit of 100 decks and the current count', async () => {
    const user = await suite.server.user();
    const empty = await suite.server.api('GET', '/decks/capacity', { token: user.token });
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body, { can_create: true, current_decks: 0, deck_limit: 100 });
    await createDeck(suite.server, user.token);
    await createDeck(suite.server, user.token);
    const two = await suite.server.api('GET', '/decks/capacity', { token: user.token });
    assert.deepEqual(two.body, { can_create: true, current_decks: 2, deck_limit: 100 });
  });

  test('should count only the decks of the calling user', async () => {
    const owner = await suite.server.user();
    await createDeck(suite.server, owner.token);
    const other = await suite.server.user();
    const res = await suite.server.api('GET', '/decks/capacity', { token: other.token });
    assert.equal(res.body.current_decks, 0);
  });

  test('should return only the neutral capacity fields', async () => {
    const user = await suite.server.user();
    const res = await suite.server.api('GET', '/decks/capacity', { token: user.token });
    assert.deepEqual(Object.keys(res.body).sort(), ['can_create', 'current_decks', 'deck_limit']);
  });

  test('should treat the literal path capacity as the capacity route, not a deck id', async () => {
    const user = await suite.server.user({ scopes: ['decks:read'] });
    const res = await suite.server.api('GET', '/decks/capacity', { token: user.token });
    assert.equal(res.status, 200);
    assert.equal(typeof res.body.can_create, 'boolean');
  });
});

describe('deck capacity with DECK_LIMIT=2', () => {
  const suite = buildForSuite({ env: { DECK_LIMIT: '2' } });

  test('should refuse a third deck with 403 DECK_LIMIT_REACHED and report can_create false', async () => {
    const user = await suite.server.user();
    await createDeck(suite.server, user.token);
    const one = await suite.server.api('GET', '/decks/capacity', { token: user.token });
    assert.deepEqual(one.body, { can_create: true, current_decks: 1, deck_limit: 2 });
    await createDeck(suite.server, user.token);
    const full = await suite.server.api('GET', '/decks/capacity', { token: user.token });
    assert.deepEqual(full.body, { can_create: false, current_decks: 2, deck_limit: 2 });

    const third = await suite.server.api('POST', '/decks/import', { token: user.token, json: deckBody(1, 'Third') });
    assert.equal(third.status, 403);
    assert.equal(third.body.error.code, 'DECK_LIMIT_REACHED');
    const list = await suite.server.api('GET', '/decks', { token: user.token });
    assert.equal(list.body.items.length, 2);
  });

  test('should refuse a markdown create at capacity too', async () => {
    const user = await suite.server.user();
    await createDeck(suite.server, user.token);
    await createDeck(suite.server, user.token);
    const res = await suite.server.api('POST', '/decks/import', {
      token: user.token,
      body: '---\nversion: 1\nlang: en\n---\n# Third\n\n## Front\nQ\n\n## Back\nA\n',
      headers: { 'content-type': 'text/markdown' },
    });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'DECK_LIMIT_REACHED');
  });

  test('should still allow mode=update at capacity', async () => {
    const user = await suite.server.user();
    const { deckId } = await createDeck(suite.server, user.token);
    await createDeck(suite.server, user.token);
    const res = await suite.server.api('POST', `/decks/import?mode=update&targetDeckId=${deckId}`, { token: user.token, json: deckBody(4, 'Replaced') });
    assert.equal(res.status, 200);
    assert.equal(res.body.cardCount, 4);
  });

  test('should count per user, so another user can still create', async () => {
    const full = await suite.server.user();
    await createDeck(suite.server, full.token);
    await createDeck(suite.server, full.token);
    const other = await suite.server.user();
    const res = await suite.server.api('POST', '/decks/import', { token: other.token, json: deckBody(1) });
    assert.equal(res.status, 201);
  });
});

describe('deck capacity with DECK_LIMIT=none', () => {
  const suite = buildForSuite({ env: { DECK_LIMIT: 'none' } });

  test('should report deck_limit null and can_create true', async () => {
    const user = await suite.server.user();
    await createDeck(suite.server, user.token);
    const res = await suite.server.api('GET', '/decks/capacity', { token: user.token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { can_create: true, current_decks: 1, deck_limit: null });
  });
});
