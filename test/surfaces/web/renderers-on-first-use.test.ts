// The renderers (markdown-it, KaTeX, sanitize-html) are loaded by the first learning-view or editor
// request, not at start (src/surfaces/web/pages/learning.pages.ts): an instance serving only the
// API never holds them. Every module this process loads is recorded from before the app is
// imported (node:test runs each file in its own process), so a static import anywhere under the
// app would show here. (KaTeX's directory is resolved at start to serve its stylesheet; resolving
// loads nothing.)
import { registerHooks } from 'node:module';
import { test } from 'node:test';
import assert from 'node:assert/strict';

const loaded = new Set<string>();
registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});

const RENDERERS = ['/node_modules/markdown-it/', '/node_modules/katex/', '/node_modules/sanitize-html/', '/src/modules/rendering/card-renderer.ts'];
const loadedRenderers = () => RENDERERS.filter((part) => [...loaded].some((url) => url.includes(part)));

// Imported here, after the hook above, so that the app's own imports are recorded.
const { buildForSuite } = await import('../../helpers/server.ts');
// A socket: pages are fetched over it.
const suite = buildForSuite({ socket: true });

test('should serve API reads, imports and the home page without loading a renderer', async () => {
  const imported = await suite.server.api('POST', '/decks/import', {
    token: suite.user.token, json: { deck: { title: 'Cells' }, cards: [{ front: '**Mitochondrion**', back: '$E=mc^2$' }] },
  });
  assert.equal(imported.status, 201);
  assert.equal((await suite.server.api('GET', `/decks/${imported.body.deckId}`, { token: suite.user.token })).status, 200);
  assert.equal((await fetch(`${suite.server.url}/`)).status, 200);
  assert.deepEqual(loadedRenderers(), []);
});

test('should load the renderers with the first learning view and render its card', async () => {
  const imported = await suite.server.api('POST', '/decks/import', {
    token: suite.user.token, json: { deck: { title: 'Public cells', visibility: 'public' }, cards: [{ front: 'What is **ATP**?', back: 'Energy' }] },
  });
  const page = await fetch(`${suite.server.url}/decks/${imported.body.deckId}`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<strong>ATP<\/strong>/);
  assert.deepEqual(loadedRenderers(), RENDERERS);
});
