// Each surface is its own scope: a scope registered next to the API, with its own body type, error
// handler and not-found handler (as the web pages, OAuth and MCP will be), meets none of the API's
// parsers, 415 and empty-body checks, error envelope, token policy or 404; and a path outside every
// surface is answered by the root, not by the API.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildForSuite } from '../helpers/server.ts';

const ORIGIN = 'https://any-site.example';

/** A form surface as the web pages will have one: urlencoded bodies, text errors, an HTML 404. */
function formsScope(app: FastifyInstance): void {
  void app.register((forms, _options, done) => {
    forms.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, parsed) => {
      parsed(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    forms.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
      void reply.code(error.statusCode ?? 500).type('text/plain; charset=utf-8').send(`forms error: ${error.message}`);
    });
    forms.setNotFoundHandler((_request, reply) => {
      void reply.code(404).type('text/html; charset=utf-8').send('<p>No such form</p>');
    });
    forms.post('/submit', async (request) => ({ received: request.body ?? null }));
    forms.post('/broken', async () => {
      throw Object.assign(new Error('the form is broken'), { statusCode: 422 });
    });
    done();
  }, { prefix: '/forms' });
}

describe('surfaces', () => {
  const suite = buildForSuite({ overrides: { extraRoutes: formsScope }, socket: true });

  const forms = (path: string, init: RequestInit = {}) => fetch(`${suite.server.url}/forms${path}`, init);

  test("should parse a urlencoded form in the child scope, which the API's parsers would refuse with 415", async () => {
    const res = await forms('/submit', {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'title=Hello&front=2%2B2',
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { received: { title: 'Hello', front: '2+2' } });
    // The same body on an API route is still the API's 415 envelope.
    const api = await suite.server.api('POST', '/decks/import', {
      token: suite.user.token, body: 'title=Hello', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(api.status, 415);
    assert.equal(api.body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test("should not apply the API's empty-body check, token policy or rate-limit headers to the child scope", async () => {
    const res = await forms('/submit', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('ratelimit'), null);
    assert.equal(res.headers.get('www-authenticate'), null);
  });

  test("should render the child scope's errors with its own handler, not the API's envelope", async () => {
    const broken = await forms('/broken', { method: 'POST' });
    assert.equal(broken.status, 422);
    assert.match(broken.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(await broken.text(), 'forms error: the form is broken');
    // A body the scope cannot parse is its error too (the API would answer 400 BAD_REQUEST in JSON).
    const badJson = await forms('/submit', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    assert.equal(badJson.status, 400);
    assert.match(await badJson.text(), /^forms error: /);
    // A media type no parser of the scope takes.
    const xml = await forms('/submit', { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<x/>' });
    assert.equal(xml.status, 415);
    assert.match(await xml.text(), /^forms error: /);
  });

  test("should answer an unknown path in the child scope with its own 404 page", async () => {
    const res = await forms('/nowhere', { headers: { origin: ORIGIN } });
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(await res.text(), '<p>No such form</p>');
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });

  test("should answer an unknown path outside every prefixed surface with the web pages' HTML 404, not the API's JSON", async () => {
    // The API's not-found handler runs in the API's scope, with its CORS headers ...
    const inApi = await fetch(`${suite.server.base}/nowhere`, { headers: { origin: ORIGIN } });
    assert.equal(inApi.status, 404);
    assert.equal(inApi.headers.get('access-control-allow-origin'), '*');
    // ... which the web surface's, answering outside /api/v1 (it is registered with prefix '/'), does not have.
    for (const path of ['/nowhere', '/api/v2/decks', '/.well-known/unknown']) {
      const outside = await fetch(`${suite.server.url}${path}`, { headers: { origin: ORIGIN } });
      assert.equal(outside.status, 404, path);
      assert.equal(outside.headers.get('access-control-allow-origin'), null, path);
      assert.match(outside.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await outside.text(), /<h1>Page not found<\/h1>/);
    }
  });
});
