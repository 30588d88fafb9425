// Scope matrix: every route with a token holding exactly one scope.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ALL_SCOPES, createDeck, deckBody, type ApiResponse, buildForSuite } from '../helpers/server.ts';

const PUBLIC_URL = 'https://flash.example.com';
const MARKDOWN = '---\nversion: 1\nlang: en\n---\n# Scoped\n\n## Front\nq\n\n## Back\na\n';

interface Route {
  name: string;
  scope: string | null;
  success: number;
  request(deckId: string, cardId: string): { method: string; path: string; json?: unknown; body?: string; headers?: Record<string, string> };
}

const ROUTES: Route[] = [
  { name: 'GET /whoami', scope: null, success: 200, request: () => ({ method: 'GET', path: '/whoami' }) },
  { name: 'GET /decks', scope: 'decks:read', success: 200, request: () => ({ method: 'GET', path: '/decks' }) },
  { name: 'GET /decks/capacity', scope: 'decks:read', success: 200, request: () => ({ method: 'GET', path: '/decks/capacity' }) },
  { name: 'GET /decks/{deckId}', scope: 'decks:read', success: 200, request: (d) => ({ method: 'GET', path: `/decks/${d}` }) },
  {
    name: 'GET /decks/{deckId} as markdown', scope: 'decks:read', success: 200,
    request: (d) => ({ method: 'GET', path: `/decks/${d}`, headers: { accept: 'text/markdown' } }),
  },
  { name: 'PATCH /decks/{deckId}', scope: 'decks:write', success: 200, request: (d) => ({ method: 'PATCH', path: `/decks/${d}`, json: { description: 'patched' } }) },
  {
    name: 'POST /decks/{deckId}/cards', scope: 'decks:write', success: 200,
    request: (d) => ({ method: 'POST', path: `/decks/${d}/cards`, json: { cards: [{ front: 'appended' }] } }),
  },
  {
    name: 'PATCH /decks/{deckId}/cards/{cardId}', scope: 'decks:write', success: 200,
    request: (d, c) => ({ method: 'PATCH', path: `/decks/${d}/cards/${c}`, json: { back: 'patched' } }),
  },
  { name: 'POST /decks/import (JSON)', scope: 'decks:write', success: 201, request: () => ({ method: 'POST', path: '/decks/import', json: deckBody(1, 'Scoped') }) },
  {
    name: 'POST /decks/import (markdown)', scope: 'decks:write', success: 201,
    request: () => ({ method: 'POST', path: '/decks/import', body: MARKDOWN, headers: { 'content-type': 'text/markdown' } }),
  },
  {
    name: 'POST /decks/import?mode=update', scope: 'decks:write', success: 200,
    request: (d) => ({ method: 'POST', path: `/decks/import?mode=update&targetDeckId=${d}`, json: { deck: { title: 'Test deck', lang: 'en' }, cards: [{ front: 'replaced' }] } }),
  },
];

function assertForbidden(res: ApiResponse, scope: string, label: string): void {
  assert.equal(res.status, 403, `${label}: ${res.text}`);
  assert.equal(res.body.error.code, 'FORBIDDEN', label);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer /, label);
  assert.ok(challenge.includes(`error="insufficient_scope", scope="${scope}"`), `${label}: ${challenge}`);
  assert.ok(challenge.includes(`resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource"`), `${label}: ${challenge}`);
  // The call was admitted (counted) before its scope was checked: the 403 tells its windows too.
  assert.match(res.headers.get('ratelimit') ?? '', /^"\w+";r=\d+;t=\d+$/, label);
  assert.match(res.headers.get('ratelimit-policy') ?? '', /^"minute";q=\d+;w=60, "day";q=\d+;w=86400$/, label);
}

describe('scope matrix', () => {
  let tokens: Record<string, string>;
  let ownerToken: string;
  let ownerEmail: string;
  let deckId: string;
  let cardId: string;
  let otherDeckId: string;
  let otherCardId: string;

  const suite = buildForSuite({ env: { PUBLIC_URL } });
  before(async () => {
    const owner = await suite.server.user();
    ownerToken = owner.token;
    ownerEmail = owner.email;
    tokens = {};
    for (const scope of ALL_SCOPES) tokens[scope] = (await suite.server.token(owner.email, [scope], `only ${scope}`)).token;
    ({ deckId } = await createDeck(suite.server, owner.token, 2));
    cardId = (await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).body.cards[0].id;
    const other = await suite.server.user();
    ({ deckId: otherDeckId } = await createDeck(suite.server, other.token, 1, 'Not yours'));
    otherCardId = (await suite.server.api('GET', `/decks/${otherDeckId}`, { token: other.token })).body.cards[0].id;
  });

  for (const route of ROUTES) {
    const title = route.scope === null
      ? `${route.name}: should answer a token with any single scope`
      : `${route.name}: should need ${route.scope} and refuse every other single scope with 403 FORBIDDEN`;
    test(title, async () => {
      // Update-mode import replaces card ids, so it gets a deck of its own.
      const target = route.name.includes('mode=update') ? (await createDeck(suite.server, ownerToken, 1)).deckId : deckId;
      const snapshot = async () => [
        (await suite.server.api('GET', `/decks/${target}`, { token: ownerToken })).text,
        (await suite.server.api('GET', '/decks?limit=100', { token: ownerToken })).body.items.length,
      ];
      const before = await snapshot();
      const refused = ALL_SCOPES.filter((scope) => route.scope !== null && scope !== route.scope);
      for (const scope of refused) {
        const { method, path, ...options } = route.request(target, cardId);
        assertForbidden(await suite.server.api(method, path, { token: tokens[scope], ...options }), route.scope as string, `${route.name} with ${scope}`);
      }
      assert.deepEqual(await snapshot(), before, 'refused calls changed nothing');
      for (const scope of route.scope === null ? ALL_SCOPES : [route.scope]) {
        const { method, path, ...options } = route.request(target, cardId);
        const res = await suite.server.api(method, path, { token: tokens[scope], ...options });
        assert.equal(res.status, route.success, `${route.name} with ${scope}: ${res.text}`);
      }
    });
  }

  test('should let a token with several scopes do exactly what they allow', async () => {
    const { token } = await suite.server.token(ownerEmail, ['decks:read', 'reviews:write']);
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token })).status, 200);
    assertForbidden(await suite.server.api('PATCH', `/decks/${deckId}`, { token, json: { title: 'no' } }), 'decks:write', 'read+reviews PATCH');
  });

  test('should check the scope before ownership: another user\'s or a missing deck is FORBIDDEN without the scope', async () => {
    const otherRoutes = ROUTES.filter((r) => r.scope !== null && r.request('dck_sentinel', 'crd_sentinel').path.includes('dck_sentinel'));
    for (const route of otherRoutes) {
      for (const [target, card] of [[otherDeckId, otherCardId], ['dck_missing', 'crd_missing']] as const) {
        const wrongScope = route.scope === 'decks:read' ? 'decks:write' : 'decks:read';
        const { method, path, ...options } = route.request(target, card);
        assertForbidden(await suite.server.api(method, path, { token: tokens[wrongScope], ...options }), route.scope as string, `${route.name} on ${target}`);
      }
    }
  });
});
