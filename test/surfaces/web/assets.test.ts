// The pages' own assets over HTTP: linked with their content hash and then cached for a year,
// compressed as the request allows (each encoding its own validator), the plain path still
// answering with a short cache, anything else under /assets/ the HTML 404 page. On both stores.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { describe, test } from 'node:test';
import zlib from 'node:zlib';
import { ASSETS_DIR } from '../../../src/surfaces/web/web.surface.ts';
import { buildForSuite } from '../../helpers/server.ts';

interface Raw { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

/** A GET whose body is left as sent (fetch would decode it). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

describe('page assets', () => {
  const css = fs.readFileSync(`${ASSETS_DIR}/site.css`);
  const suite = buildForSuite({ socket: true });

  async function linkedCss(): Promise<string> {
    const page = await (await fetch(`${suite.server.url}/signin`)).text();
    const href = /<link rel="stylesheet" href="(\/assets\/site\.css\?v=[\w-]+)">/.exec(page)?.[1];
    assert.ok(href, 'the layout links site.css with its hash');
    assert.match(page, /<link rel="icon" href="\/assets\/favicon\.svg\?v=[\w-]+"/);
    return href;
  }

  test('should link the stylesheet with its hash and serve that URL for a year, with the file as it is on disk', async () => {
    const href = await linkedCss();
    const res = await fetch(`${suite.server.url}${href}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(res.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), css);
  });

  test('should send br, gzip or no encoding as Accept-Encoding allows, each with its own ETag, and 304 to a matching If-None-Match', async () => {
    const url = `${suite.server.url}${await linkedCss()}`;
    const br = await rawGet(url, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.deepEqual(zlib.brotliDecompressSync(br.body), css);
    const gzip = await rawGet(url, { 'accept-encoding': 'br;q=0, gzip' });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.deepEqual(zlib.gunzipSync(gzip.body), css);
    const identity = await rawGet(url, { 'accept-encoding': 'identity' });
    assert.equal(identity.headers['content-encoding'], undefined);
    assert.deepEqual(identity.body, css);
    const etags = new Set([br.headers.etag, gzip.headers.etag, identity.headers.etag]);
    assert.equal(etags.size, 3);
    const again = await rawGet(url, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    // Another representation's validator does not match this one.
    assert.equal((await rawGet(url, { 'accept-encoding': 'br', 'if-none-match': String(gzip.headers.etag) })).status, 200);
  });

  test('should answer the plain path and an old hash with the short cache, and an unknown asset with the 404 page', async () => {
    for (const path of ['/assets/site.css', '/assets/site.css?v=old', '/assets/copy.js', '/assets/favicon.svg']) {
      const res = await fetch(`${suite.server.url}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=3600', path);
      await res.arrayBuffer();
    }
    const missing = await fetch(`${suite.server.url}/assets/nothing.css`);
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /Page not found/);
    const katex = await fetch(`${suite.server.url}/assets/katex/katex.min.css`);
    assert.equal(katex.status, 200);
    await katex.arrayBuffer();
  });
});
