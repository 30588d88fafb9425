// The served OpenAPI document against the spec. `redocly lint` with the project's configuration
// checks the same document (scripts/write-openapi.ts builds the app and writes app.apiDocument())
// in CI's "OpenAPI lint" step (`npm run lint:openapi`), so it is not run a second time here.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { buildForSuite } from '../../helpers/server.ts';

const PUBLIC_URL = 'https://flash.example.com';

type Operation = {
  operationId: string;
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema: { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } } }> }>;
};

const AUTH = { 401: ['UNAUTHORIZED', 'TOKEN_REVOKED'], 429: ['RATE_LIMITED'], 500: ['INTERNAL_ERROR'] };
const PATH_DECK = { 403: ['FORBIDDEN', 'DECK_FORBIDDEN'], 404: ['DECK_NOT_FOUND'] };
const BODY = { 412: ['VERSION_MISMATCH'], 413: ['PAYLOAD_TOO_LARGE'], 415: ['UNSUPPORTED_MEDIA_TYPE'] };

// What the spec and DECISIONS promise per operation: success statuses, and error codes by status.
const EXPECTED: Record<string, { success: number[]; errors: Record<number, string[]> }> = {
  'GET /whoami': { success: [200], errors: { ...AUTH } },
  'GET /decks': { success: [200], errors: { ...AUTH, 400: ['BAD_REQUEST'], 403: ['FORBIDDEN'] } },
  'GET /decks/capacity': { success: [200], errors: { ...AUTH, 403: ['FORBIDDEN'] } },
  'GET /decks/{deckId}': { success: [200], errors: { ...AUTH, ...PATH_DECK } },
  'PATCH /decks/{deckId}': { success: [200], errors: { ...AUTH, ...PATH_DECK, ...BODY, 400: ['BAD_REQUEST', 'SCHEMA_INVALID'] } },
  'POST /decks/{deckId}/cards': {
    success: [200],
    errors: { ...AUTH, ...PATH_DECK, ...BODY, 400: ['BAD_REQUEST', 'SCHEMA_INVALID', 'TOO_MANY_CARDS'], 409: ['IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_IN_USE'] },
  },
  'PATCH /decks/{deckId}/cards/{cardId}': {
    success: [200],
    errors: { ...AUTH, ...BODY, 400: ['BAD_REQUEST', 'SCHEMA_INVALID'], 403: ['FORBIDDEN', 'DECK_FORBIDDEN'], 404: ['DECK_NOT_FOUND', 'CARD_NOT_FOUND'] },
  },
  'GET /decks/{deckId}/cards/{cardId}': { success: [200], errors: { ...AUTH, 403: ['FORBIDDEN', 'DECK_FORBIDDEN'], 404: ['DECK_NOT_FOUND', 'CARD_NOT_FOUND'] } },
  'DELETE /decks/{deckId}/cards/{cardId}': {
    success: [200], errors: { ...AUTH, 403: ['FORBIDDEN', 'DECK_FORBIDDEN'], 404: ['DECK_NOT_FOUND', 'CARD_NOT_FOUND'], 412: ['VERSION_MISMATCH'] },
  },
  'POST /decks/{deckId}/cards/{cardId}/move': {
    success: [200], errors: { ...AUTH, ...BODY, 400: ['BAD_REQUEST', 'SCHEMA_INVALID'], 403: ['FORBIDDEN', 'DECK_FORBIDDEN'], 404: ['DECK_NOT_FOUND', 'CARD_NOT_FOUND'] },
  },
  'PATCH /decks/{deckId}/cards': {
    success: [200],
    errors: {
      ...AUTH, ...BODY, 400: ['BAD_REQUEST', 'SCHEMA_INVALID', 'TOO_MANY_CARDS'], 403: ['FORBIDDEN', 'DECK_FORBIDDEN'], 404: ['DECK_NOT_FOUND', 'CARD_NOT_FOUND'],
      409: ['IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_IN_USE'],
    },
  },
  'POST /reviews': { success: [201], errors: { ...AUTH, 400: ['BAD_REQUEST', 'SCHEMA_INVALID'], 403: ['FORBIDDEN'], 404: ['DECK_NOT_FOUND'], 409: ['IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_IN_USE'] } },
  'GET /reviews': { success: [200], errors: { ...AUTH, 400: ['BAD_REQUEST'], 403: ['FORBIDDEN'], 404: ['DECK_NOT_FOUND'] } },
  'GET /reviews/due': { success: [200], errors: { ...AUTH, 403: ['FORBIDDEN'] } },
  'GET /decks/{deckId}/schedule': { success: [200], errors: { ...AUTH, ...PATH_DECK } },
  'POST /decks/import': {
    success: [200, 201],
    errors: {
      ...AUTH, ...BODY,
      400: ['BAD_REQUEST', 'PARSE_FAILED', 'SCHEMA_INVALID', 'TOO_MANY_CARDS'],
      403: ['FORBIDDEN', 'DECK_LIMIT_REACHED'],
      404: ['DECK_NOT_FOUND'],
      409: ['IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_IN_USE'],
    },
  },
  'DELETE /decks/{deckId}': { success: [204], errors: { ...AUTH, ...PATH_DECK, 412: ['VERSION_MISMATCH'] } },
  'GET /decks/trash': { success: [200], errors: { ...AUTH, 403: ['FORBIDDEN'] } },
  'POST /decks/{deckId}/restore': { success: [200], errors: { ...AUTH, ...PATH_DECK, 403: ['FORBIDDEN', 'DECK_FORBIDDEN', 'DECK_LIMIT_REACHED'] } },
  'GET /search': { success: [200], errors: { ...AUTH, 403: ['FORBIDDEN'] } },
  'GET /public/decks': { success: [200], errors: { ...AUTH, 403: ['FORBIDDEN'] } },
  'GET /public/decks/{deckId}': { success: [200], errors: { ...AUTH, 400: ['BAD_REQUEST'], 403: ['FORBIDDEN'], 404: ['DECK_NOT_FOUND'], 414: ['URI_TOO_LONG'] } },
  'POST /public/decks/{deckId}/copy': {
    success: [201],
    errors: { ...AUTH, 400: ['BAD_REQUEST'], 403: ['FORBIDDEN', 'DECK_LIMIT_REACHED'], 404: ['DECK_NOT_FOUND'], 409: ['IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_IN_USE'], 414: ['URI_TOO_LONG'] },
  },
};

function codesOf(operation: Operation, status: string): string[] {
  return operation.responses[status]?.content?.['application/json']?.schema.properties?.error?.properties?.code?.enum ?? [];
}

describe('the OpenAPI document', () => {
  let doc: { openapi: string; info: { version: string }; servers: { url: string }[]; paths: Record<string, Record<string, Operation>> };
  let operations: [string, Operation][];

  const suite = buildForSuite({ env: { PUBLIC_URL, RATE_LIMIT_PER_MINUTE: '1' }, overrides: { clock: { now: () => new Date('2030-09-01T10:00:00.000Z') } }, socket: true });
  before(async () => {
    // A fixed clock keeps the tiny per-minute window from resetting mid-test.
    doc = suite.server.app.apiDocument() as never;
    operations = Object.entries(doc.paths).flatMap(([p, methods]) => Object.entries(methods).map(([m, op]) => [`${m.toUpperCase()} ${p}`, op] as [string, Operation]));
  });

  test('should be served at /openapi.json without a token', async () => {
    const res = await suite.server.api('GET', '/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(res.body, JSON.parse(JSON.stringify(doc)));
  });

  test('should not be rate limited, even past a tiny per-token limit', async () => {
    const user = await suite.server.user();
    for (let i = 0; i < 5; i++) {
      for (const options of [{}, { token: user.token }]) {
        const res = await suite.server.api('GET', '/openapi.json', options);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('ratelimit'), null);
        assert.equal(res.headers.get('ratelimit-policy'), null);
      }
    }
    // The token's single call of the minute is still unspent.
    const whoami = await suite.server.api('GET', '/whoami', { token: user.token });
    assert.equal(whoami.status, 200);
    assert.equal((await suite.server.api('GET', '/whoami', { token: user.token })).status, 429);
  });

  test('should ignore an invalid token on /openapi.json', async () => {
    const res = await suite.server.api('GET', '/openapi.json', { token: 'svc_pat_not_a_token' });
    assert.equal(res.status, 200);
  });

  test('should be OpenAPI 3.1.0, document version 1.7.0, served from PUBLIC_URL/api/v1', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.7.0');
    assert.equal(doc.servers[0]?.url, `${PUBLIC_URL}/api/v1`);
  });

  test('should describe every route of the interface', () => {
    const ids = operations.map(([name]) => name);
    for (const name of [...Object.keys(EXPECTED), 'GET /openapi.json']) assert.ok(ids.includes(name), `${name} in ${ids}`);
    assert.ok(ids.filter((id) => id.startsWith('DELETE')).every((id) => id.startsWith('DELETE /decks/{deckId}')), 'deletes only decks and their parts');
  });

  test('should list 401 and 429 with their codes on every token-authenticated operation', () => {
    for (const [name, operation] of operations) {
      if (name === 'GET /openapi.json') continue;
      for (const [status, codes] of [['401', AUTH[401]], ['429', AUTH[429]]] as const) {
        for (const code of codes) assert.ok(codesOf(operation, status).includes(code), `${name} ${status} lists ${code}`);
      }
    }
  });

  test('should list every success status and error code of each route', () => {
    for (const [name, expected] of Object.entries(EXPECTED)) {
      const operation = operations.find(([n]) => n === name)?.[1];
      assert.ok(operation, name);
      for (const status of expected.success) assert.ok(operation.responses[String(status)], `${name} documents ${status}`);
      for (const [status, codes] of Object.entries(expected.errors)) {
        const listed = codesOf(operation, status);
        for (const code of codes) assert.ok(listed.includes(code), `${name} ${status} lists ${code} (has ${listed})`);
      }
    }
  });

  test('should document the markdown and CSV variants of GET /decks/{deckId} and POST /decks/import', () => {
    const getDeck = doc.paths['/decks/{deckId}'].get;
    assert.deepEqual(Object.keys(getDeck.responses['200']?.content ?? {}), ['application/json'], 'GET deck 200 typed as JSON');
    assert.ok((getDeck.responses['200'] as Record<string, any>)['x-alternative-content']?.['text/markdown'], 'GET deck 200 text/markdown by Accept');
    assert.ok((getDeck.responses['200'] as Record<string, any>)['x-alternative-content']?.['text/csv'], 'GET deck 200 text/csv by Accept');
    assert.ok(doc.paths['/decks/{deckId}/markdown']?.get?.responses['200']?.content?.['text/markdown'], 'GET deck markdown 200 text/markdown');
    const importDeck = doc.paths['/decks/import'].post as unknown as { requestBody: { content: Record<string, unknown> } };
    assert.deepEqual(Object.keys(importDeck.requestBody.content).sort(), ['application/json', 'text/csv', 'text/markdown']);
  });

  test('should require a token everywhere but on /openapi.json, naming each operation\'s scope as OAuth2 and bearer scopes', () => {
    const global = (doc as unknown as { security: unknown[] }).security;
    assert.deepEqual(global, [{ oauth2: [] }, { bearerAuth: [] }]);
    const scopes: Record<string, string[]> = {
      'GET /whoami': [], 'GET /decks': ['decks:read'], 'GET /decks/{deckId}': ['decks:read'], 'POST /decks/import': ['decks:write'],
      'POST /decks/{deckId}/cards': ['decks:write'], 'POST /reviews': ['reviews:write'], 'GET /reviews/{sessionId}': ['reviews:read'],
      // Both scopes in one requirement: a copy needs each (DECISIONS, public decks).
      'POST /public/decks/{deckId}/copy': ['public-decks:read', 'decks:write'],
    };
    for (const [name, operation] of operations) {
      if (name === 'GET /openapi.json') assert.deepEqual(operation.security, []);
      else assert.notDeepEqual(operation.security, [], name);
      const scope = scopes[name];
      if (scope) assert.deepEqual(operation.security, [{ oauth2: scope }, { bearerAuth: scope }], name);
    }
    const flows = (doc as unknown as { components: { securitySchemes: { oauth2: { flows: { authorizationCode: { authorizationUrl: string; tokenUrl: string; scopes: Record<string, string> } } } } } })
      .components.securitySchemes.oauth2.flows.authorizationCode;
    assert.equal(flows.authorizationUrl, `${PUBLIC_URL}/oauth/authorize`);
    assert.equal(flows.tokenUrl, `${PUBLIC_URL}/oauth/token`);
    assert.deepEqual(Object.keys(flows.scopes).sort(), ['decks:delete', 'decks:read', 'decks:write', 'public-decks:read', 'reviews:read', 'reviews:write']);
  });

  test('should name its shapes, type error details and document response headers', () => {
    const components = (doc as unknown as { components: { schemas: Record<string, unknown>; headers: Record<string, unknown> } }).components;
    for (const name of ['Deck', 'DeckSummary', 'DeckList', 'Card', 'CardInput', 'ImportResult', 'AppendCardsResult', 'Capacity', 'WhoAmI', 'ErrorDetails']) {
      assert.ok(components.schemas[name], name);
    }
    for (const name of ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'WWW-Authenticate', 'Idempotent-Replayed', 'X-Request-Id', 'ETag']) assert.ok(components.headers[name], name);
    const text = JSON.stringify(doc);
    assert.equal(text.includes('"Default Response"'), false);
    const info = (doc as unknown as { info: { contact?: unknown } }).info;
    assert.ok(info.contact);
  });

  test('should serve the interactive docs at /api/v1/docs, with or without a slash, and every file they load, without a token', async () => {
    for (const page of [`${suite.server.base}/docs`, `${suite.server.base}/docs/`]) {
      const res = await fetch(page);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      const html = await res.text();
      assert.match(html, /<html/i);
      const assets = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => new URL(m[1] ?? '', page).href);
      assert.ok(assets.some((a) => a.endsWith('/swagger-ui-bundle.js')), page);
      for (const asset of assets) {
        const file = await fetch(asset);
        assert.equal(file.status, 200, `${page}: ${asset}`);
        // Read to the end: a large body left unread (swagger-ui-bundle.js) keeps its connection
        // busy, and the server's close waits for it until the keep-alive timeout (72 s).
        await file.arrayBuffer();
      }
    }
  });
});
