// Image and thumbnail URLs: https, or root-relative paths that stay on this origin. Browsers read
// "/\host" (and "/<tab>/host": URL parsers drop tabs and line breaks) as "//host", another origin.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertSchemaInvalidAt as assertRefused, buildForSuiteWithDeck } from '../../helpers/fixtures.ts';

const OFF_ORIGIN = [
  '//evil.example', '/\\evil.example', '/\\/evil.example', '/\\\\evil.example', '/\t/evil.example', '/\n/evil.example',
  '/\r/evil.example', '/\t\\evil.example', ' /evil.example', '/evil.example/a b.png', '/a\u0000b.png', '/a\u007f.png', '/a\u001fb.png',
  'https://\\evil.example/a.png', 'https:///evil.example', 'https://evil.example/\t/x.png', 'http://evil.example/a.png',
];
const ON_ORIGIN = ['/', '/img/a.png', '/a\\b.png', '/%5Cevil.example', '/deep/path/image.svg?v=2#frag', 'https://img.example/a.png', 'HTTPS://IMG.EXAMPLE/A.PNG'];

describe('media URLs', () => {
  const f = buildForSuiteWithDeck();

  const importJson = (card: unknown, deck: Record<string, unknown> = {}) => f.server.api('POST', '/decks/import', { token: f.user.token, json: { deck: { title: 'URLs', ...deck }, cards: [card] } });
  const importMarkdown = (meta: string) => f.server.api('POST', '/decks/import', {
    token: f.user.token, body: `---\nversion: 1\n---\n# URLs\n\n<!-- card\n${meta}\n-->\n## Front\nq\n`, headers: { 'content-type': 'text/markdown' },
  });

  test('should refuse image URLs that leave the origin in import, append, card PATCH and markdown', async () => {
    for (const url of OFF_ORIGIN) {
      const label = JSON.stringify(url);
      assertRefused(await importJson({ front: 'q', frontMedia: { imageUrl: url } }), 'cards[0].frontMedia.imageUrl', `import ${label}`);
      assertRefused(await f.server.api('POST', `/decks/${f.deckId}/cards`, { token: f.user.token, json: { cards: [{ front: 'q', backMedia: { imageUrl: url } }] } }), 'cards[0].backMedia.imageUrl', `append ${label}`);
      assertRefused(await f.server.api('PATCH', `/decks/${f.deckId}/cards/${f.cardId}`, { token: f.user.token, json: { frontMedia: { imageUrl: url } } }), 'frontMedia.imageUrl', `patch ${label}`);
      assertRefused(await importMarkdown(`frontMedia:\n  imageUrl: ${JSON.stringify(url)}`), 'cards[0].frontMedia.imageUrl', `markdown ${label}`);
    }
  });

  test('should accept https URLs and root-relative paths on this origin', async () => {
    for (const url of ON_ORIGIN) {
      const res = await importJson({ front: 'q', frontMedia: { imageUrl: url } });
      assert.equal(res.status, 201, `${JSON.stringify(url)}: ${res.text}`);
      const md = await importMarkdown(`frontMedia:\n  imageUrl: ${JSON.stringify(url)}`);
      assert.equal(md.status, 201, `markdown ${JSON.stringify(url)}: ${md.text}`);
    }
  });

  test('should refuse thumbnails that are not plain https URLs, in import and deck PATCH', async () => {
    for (const url of [...OFF_ORIGIN, '/img/a.png', 'https://img.example/a b.png', 'https://img.example/\u0000.png']) {
      const label = JSON.stringify(url);
      assertRefused(await importJson({ front: 'q' }, { thumbnail: url }), 'deck.thumbnail', `import ${label}`);
      assertRefused(await f.server.api('PATCH', `/decks/${f.deckId}`, { token: f.user.token, json: { thumbnail: url } }), 'thumbnail', `patch ${label}`);
    }
  });
});
