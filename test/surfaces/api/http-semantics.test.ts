// HTTP semantics a cache, a browser or a generic HTTP client relies on: validators and 304 on a
// deck read, Vary and Cache-Control, compression that keeps ETag and Content-Length honest, 405
// with Allow, If-Match lists and weak tags, OPTIONS outside a preflight.
import assert from 'node:assert/strict';
import http from 'node:http';
import { before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { createDeck, type TestUser, buildForSuite } from '../../helpers/server.ts';

interface RawResponse { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

/** A request without fetch's automatic Accept-Encoding and decompression. */
function raw(url: string, method: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
    request.end();
  });
}

const list = (value: string | string[] | null | undefined) => String(value ?? '').split(',').map((v) => v.trim().toLowerCase()).filter(Boolean);

describe('HTTP semantics', () => {
  let user: TestUser;
  let deckId: string;
  let version: string;
  const suite = buildForSuite({ socket: true });
  before(async () => {
    user = await suite.server.user();
    ({ deckId, version } = await createDeck(suite.server, user.token, 250));
  });

  const auth = () => ({ authorization: `Bearer ${user.token}` });

  test('should send ETag, Vary: Accept and Cache-Control: private, no-cache on a deck read', async () => {
    const res = await raw(`${suite.server.base}/decks/${deckId}`, 'GET', auth());
    assert.equal(res.status, 200);
    assert.equal(res.headers.etag, `"${version}"`);
    assert.ok(list(res.headers.vary).includes('accept'), String(res.headers.vary));
    assert.deepEqual(list(res.headers['cache-control']), ['private', 'no-cache']);
    assert.equal(Number(res.headers['content-length']), res.body.length);
  });

  test('should answer If-None-Match holding the version with 304 and no body, for JSON and markdown', async () => {
    for (const accept of ['application/json', 'text/markdown']) {
      for (const tag of [`"${version}"`, `W/"${version}"`, `"stale", "${version}"`, '*']) {
        const res = await raw(`${suite.server.base}/decks/${deckId}`, 'GET', { ...auth(), accept, 'if-none-match': tag });
        assert.equal(res.status, 304, `${accept} ${tag}`);
        assert.equal(res.body.length, 0);
        assert.equal(res.headers.etag, `"${version}"`);
      }
      const stale = await raw(`${suite.server.base}/decks/${deckId}`, 'GET', { ...auth(), accept, 'if-none-match': '"2001-01-01T00:00:00.000Z"' });
      assert.equal(stale.status, 200);
      assert.ok(stale.body.length > 0);
    }
  });

  test('should declare the 304 of every conditional deck read in the OpenAPI document, with its ETag', async () => {
    // suite.server.api checks each response against the served document: an undeclared status throws.
    for (const path of [`/decks/${deckId}`, `/decks/${deckId}/markdown`, `/decks/${deckId}/csv`]) {
      const res = await suite.server.api('GET', path, { token: user.token, headers: { 'if-none-match': `"${version}"` } });
      assert.equal(res.status, 304, path);
    }
    const paths = (suite.server.app.apiDocument() as { paths: Record<string, { get: { responses: Record<string, { headers?: object }> } }> }).paths;
    for (const path of ['/decks/{deckId}', '/decks/{deckId}/markdown', '/decks/{deckId}/csv']) {
      for (const status of ['200', '304']) assert.ok(Object.hasOwn(paths[path]?.get.responses[status]?.headers ?? {}, 'ETag'), `${path} ${status} ETag`);
    }
  });

  test('should not answer 304 to a caller who may not read the deck', async () => {
    const other = await suite.server.user();
    const res = await raw(`${suite.server.base}/decks/${deckId}`, 'GET', { authorization: `Bearer ${other.token}`, 'if-none-match': `"${version}"` });
    assert.equal(res.status, 403);
  });

  test('should compress a large deck and keep its content intact, with a weak ETag', async () => {
    const identity = await raw(`${suite.server.base}/decks/${deckId}`, 'GET', { ...auth(), 'accept-encoding': 'identity' });
    for (const [encoding, inflate] of [['gzip', zlib.gunzipSync], ['br', zlib.brotliDecompressSync], ['deflate', zlib.inflateSync]] as const) {
      const res = await raw(`${suite.server.base}/decks/${deckId}`, 'GET', { ...auth(), 'accept-encoding': encoding });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-encoding'], encoding);
      assert.ok(res.body.length < identity.body.length / 3, `${encoding}: ${res.body.length} of ${identity.body.length}`);
      assert.deepEqual(inflate(res.body), identity.body);
      assert.equal(res.headers.etag, `W/"${version}"`);
      if (res.headers['content-length'] !== undefined) assert.equal(Number(res.headers['content-length']), res.body.length);
      assert.ok(list(res.headers.vary).includes('accept-encoding'));
      assert.ok(list(res.headers.vary).includes('accept'));
      const revalidated = await raw(`${suite.server.base}/decks/${deckId}`, 'GET', { ...auth(), 'accept-encoding': encoding, 'if-none-match': String(res.headers.etag) });
      assert.equal(revalidated.status, 304);
    }
  });

  test('should mark every other API response Cache-Control: no-store', async () => {
    for (const [path, headers] of [['/whoami', auth()], ['/decks', auth()], ['/decks/capacity', auth()], ['/whoami', {}], ['/nope', {}]] as const) {
      const res = await raw(`${suite.server.base}${path}`, 'GET', headers);
      assert.equal(res.headers['cache-control'], 'no-store', path);
    }
  });

  test('should answer a known path with another method with 405 METHOD_NOT_ALLOWED and Allow', async () => {
    const cases: [string, string, string[]][] = [
      ['POST', `/decks/${deckId}`, ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH']],
      ['PUT', `/decks/${deckId}`, ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH']],
      ['POST', '/whoami', ['GET', 'HEAD', 'OPTIONS']],
      ['PUT', `/decks/${deckId}/cards/crd_x`, ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH']],
    ];
    for (const [method, path, allowed] of cases) {
      const res = await raw(`${suite.server.base}${path}`, method, auth());
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.deepEqual(list(res.headers.allow), allowed.map((m) => m.toLowerCase()), `${method} ${path}`);
      const body = JSON.parse(res.body.toString()) as { error: { code: string } };
      assert.equal(body.error.code, 'METHOD_NOT_ALLOWED');
    }
    assert.equal((await raw(`${suite.server.base}/decks/${deckId}/nothing`, 'DELETE', auth())).status, 404);
  });

  test('should understand If-Match lists, * and weak tags (strong comparison)', async () => {
    const { deckId: id, version: v } = await createDeck(suite.server, user.token, 1);
    const patch = (ifMatch: string, title: string) => suite.server.api('PATCH', `/decks/${id}`, { token: user.token, json: { title }, headers: { 'if-match': ifMatch } });
    const weak = await patch(`W/"${v}"`, 'weak');
    assert.equal(weak.status, 412);
    assert.equal(weak.body.error.code, 'VERSION_MISMATCH');
    const listed = await patch(`"2001-01-01T00:00:00.000Z", "${v}"`, 'listed');
    assert.equal(listed.status, 200, listed.text);
    const bare = await patch(listed.body.version as string, 'bare');
    assert.equal(bare.status, 200, bare.text);
    assert.equal((await patch('*', 'any')).status, 200);
    assert.equal((await patch(`"${v}"`, 'stale')).status, 412);
  });

  test('should answer OPTIONS without Access-Control-Request-Method without a text/plain 400', async () => {
    const res = await raw(`${suite.server.base}/decks`, 'OPTIONS', { origin: 'https://any.example' });
    assert.ok(res.status === 204 || res.status === 200, String(res.status));
    assert.equal(res.headers['access-control-allow-origin'], '*');
  });
});
