import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { purgeUnreferencedMedia } from '../../../src/modules/media/media.service.ts';
import { SVG, gif, jpegHeader, noisyPng, png } from '../../helpers/images.ts';
import { mediaRows } from '../../helpers/media-rows.ts';
import { manualClock, type ApiResponse, buildForSuite } from '../../helpers/server.ts';

function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

describe('POST /media and GET /media/...', () => {
  const time = manualClock('2030-08-01T08:00:00.000Z');
  const suite = buildForSuite({ overrides: { clock: time.clock }, socket: true });

  const upload = (body: Buffer, contentType = 'image/png', as = suite.user.token) =>
    suite.server.api('POST', '/media', { token: as, body, headers: { 'content-type': contentType } });

  test('should store a PNG and answer 201 with its root-relative URL, type and dimensions', async () => {
    const image = png(3, 2);
    const res = await upload(image);
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.id, /^med_[0-9a-f]{64}$/);
    assert.match(res.body.url, /^\/media\/[0-9a-f]{64}\.png$/);
    assert.deepEqual({ ...res.body, id: undefined, url: undefined }, { id: undefined, url: undefined, contentType: 'image/png', bytes: image.length, width: 3, height: 2 });
    const served = await fetch(`${suite.server.url}${res.body.url}`);
    assert.equal(served.status, 200);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), image);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal(served.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(served.headers.get('content-security-policy'), "default-src 'none'; sandbox");
    const again = await fetch(`${suite.server.url}${res.body.url}`, { headers: { 'if-none-match': served.headers.get('etag') ?? '' } });
    assert.equal(again.status, 304);
  });

  test('should give the same id for the same bytes uploaded twice', async () => {
    const image = png(4, 4, 10);
    const first = await upload(image);
    const second = await upload(image, 'application/octet-stream');
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.equal(second.body.id, first.body.id);
  });

  test('should read the type from the bytes when the body is application/octet-stream', async () => {
    const res = await upload(gif(), 'application/octet-stream');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.contentType, 'image/gif');
    assert.match(res.body.url, /\.gif$/);
    const jpeg = await upload(jpegHeader(640, 480), 'application/octet-stream');
    assert.equal(jpeg.status, 201, jpeg.text);
    assert.deepEqual([jpeg.body.contentType, jpeg.body.width, jpeg.body.height], ['image/jpeg', 640, 480]);
  });

  test('should refuse bytes that do not match the declared type with IMAGE_TYPE_MISMATCH', async () => {
    const res = await upload(png(2, 2), 'image/jpeg');
    assertError(res, 400, 'IMAGE_TYPE_MISMATCH');
    assert.equal(res.body.error.details.detected, 'image/png');
  });

  test('should refuse SVG with IMAGE_SVG_REFUSED, declared or not', async () => {
    assertError(await upload(SVG, 'image/svg+xml'), 415, 'IMAGE_SVG_REFUSED');
    assertError(await upload(SVG, 'application/octet-stream'), 415, 'IMAGE_SVG_REFUSED');
  });

  test('should refuse a 50-megapixel PNG with IMAGE_DIMENSIONS_TOO_LARGE without decoding it', async () => {
    assertError(await upload(png(10_000, 5_000, 0, { pixels: false })), 413, 'IMAGE_DIMENSIONS_TOO_LARGE');
  });

  test('should refuse an image over 5 MiB with PAYLOAD_TOO_LARGE', async () => {
    const big = Buffer.concat([png(1, 1), Buffer.alloc(5 * 1024 * 1024)]);
    assertError(await upload(big), 413, 'PAYLOAD_TOO_LARGE');
  });

  test('should refuse bytes that are no accepted image with IMAGE_TYPE_UNSUPPORTED', async () => {
    assertError(await upload(Buffer.from('BM this is a bitmap, supposedly'), 'application/octet-stream'), 415, 'IMAGE_TYPE_UNSUPPORTED');
  });

  test('should refuse a truncated PNG with IMAGE_UNREADABLE', async () => {
    assertError(await upload(png(2, 2).subarray(0, 20)), 400, 'IMAGE_UNREADABLE');
  });

  test('should refuse another Content-Type with UNSUPPORTED_MEDIA_TYPE and an empty body with BAD_REQUEST', async () => {
    assertError(await upload(png(2, 2), 'image/bmp'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    assertError(await upload(Buffer.alloc(0)), 400, 'BAD_REQUEST');
  });

  test('should need decks:write', async () => {
    const reader = await suite.server.user({ scopes: ['decks:read'] });
    assertError(await upload(png(2, 2), 'image/png', reader.token), 403, 'FORBIDDEN');
  });

  test('should answer 404 MEDIA_NOT_FOUND for an address with no media or the wrong extension', async () => {
    const res = await upload(png(5, 5));
    const missing = await fetch(`${suite.server.url}/media/${'0'.repeat(64)}.png`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json() as { error: { code: string } }).error.code, 'MEDIA_NOT_FOUND');
    const wrongExtension = await fetch(`${suite.server.url}${res.body.url.replace(/\.png$/, '.gif')}`);
    assert.equal(wrongExtension.status, 404);
  });
});

describe('media quota and purge', () => {
  const time = manualClock('2030-08-01T08:00:00.000Z');
  const suite = buildForSuite({ env: { MEDIA_QUOTA_BYTES: '2000', MEDIA_GRACE_HOURS: '24' }, overrides: { clock: time.clock }, socket: true });

  const upload = (body: Buffer) => suite.server.api('POST', '/media', { token: suite.user.token, body, headers: { 'content-type': 'image/png' } });
  const served = async (url: string) => (await fetch(`${suite.server.url}${url}`)).status;

  test('should refuse an upload past the quota with MEDIA_QUOTA_EXCEEDED, and count a re-upload once', async () => {
    const image = noisyPng(32, 32); // about 1,100 bytes of a 2,000-byte quota
    assert.equal((await upload(image)).status, 201);
    assert.equal((await upload(image)).status, 201, 'the same bytes again take no more quota');
    const res = await upload(noisyPng(32, 32));
    assertError(res, 403, 'MEDIA_QUOTA_EXCEEDED');
    assert.equal(res.body.error.details.quotaBytes, 2000);
    const another = await suite.server.user();
    const theirs = await suite.server.api('POST', '/media', { token: another.token, body: image, headers: { 'content-type': 'image/png' } });
    assert.equal(theirs.status, 201, 'the quota is per user');
  });

  test('should remove media no deck refers to after the grace period, keeping referenced media', async () => {
    const other = await suite.server.user();
    const send = (body: Buffer) => suite.server.api('POST', '/media', { token: other.token, body, headers: { 'content-type': 'image/png' } });
    const kept = await send(png(6, 6, 50));
    const dropped = await send(png(7, 7, 60));
    const used = await send(png(8, 8, 70));
    assert.equal(kept.status, 201, kept.text);
    const deck = await suite.server.api('POST', '/decks/import', {
      token: other.token,
      json: {
        deck: { title: 'With images' },
        cards: [
          { front: 'Q', back: 'A', frontMedia: { imageUrl: kept.body.url, imageAlt: 'a cell' } },
          { front: 'Q2', back: `In markdown: ![cell](${used.body.url})` },
        ],
      },
    });
    assert.equal(deck.status, 201, deck.text);
    const hash = (url: string) => /([0-9a-f]{64})/.exec(url)?.[1];
    await purgeUnreferencedMedia(suite.server.app.services);
    time.ms += 23 * 3_600_000;
    await purgeUnreferencedMedia(suite.server.app.services);
    assert.ok((await mediaRows(suite.server)).includes(hash(dropped.body.url) ?? ''), 'kept through the grace period');
    time.ms += 2 * 3_600_000;
    const purge = await purgeUnreferencedMedia(suite.server.app.services);
    assert.ok(purge.removed >= 1);
    const rows = await mediaRows(suite.server);
    assert.ok(!rows.includes(hash(dropped.body.url) ?? ''), 'the unreferenced image is gone');
    assert.ok(rows.includes(hash(kept.body.url) ?? ''), 'an imageUrl keeps its image');
    assert.ok(rows.includes(hash(used.body.url) ?? ''), 'a markdown image keeps its image');
    assert.equal(await served(dropped.body.url), 404);
    assert.equal(await served(kept.body.url), 200);
  });

  test('should free the quota once the unreferenced media is purged', async () => {
    const owner = await suite.server.user();
    const send = (body: Buffer) => suite.server.api('POST', '/media', { token: owner.token, body, headers: { 'content-type': 'image/png' } });
    assert.equal((await send(noisyPng(32, 32))).status, 201);
    assertError(await send(noisyPng(32, 32)), 403, 'MEDIA_QUOTA_EXCEEDED');
    await purgeUnreferencedMedia(suite.server.app.services);
    time.ms += 25 * 3_600_000;
    await purgeUnreferencedMedia(suite.server.app.services);
    assert.equal((await send(noisyPng(32, 32))).status, 201);
  });
});
