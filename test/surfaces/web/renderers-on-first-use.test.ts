// The renderers (markdown-it, KaTeX, sanitize-html) are loaded by the first learning-view or editor
// request, not at start (src/surfaces/web/pages/learning.pages.ts): an instance serving only the
// API never holds them. Every module this process loads is recorded from before the app is
// imported (node:test runs each file in its own process), so a static import anywhere under the
// app would show here. (KaTeX's directory is resolved at start to serve its stylesheet; resolving
// loads nothing.)
import { registerHooks } from 'node:module';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer, TestUser } from '../../helpers/server.ts';

const loaded = new Set<string>();
registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});

const RENDERERS = ['/node_modules/markdown-it/', '/node_modules/katex/', '/node_modules/sanitize-html/', '/src/modules/rendering/card-renderer.ts'];
const loadedRenderers = () => RENDERERS.filter((part) => [...loaded].some((url) => url.includes(part)));

let server: TestServer;
let user: TestUser;

before(async () => {
  const { startServer } = await import('../../helpers/server.ts');
  server = await startServer();
  user = await server.user();
});
after(() => server.close());

test('should serve API reads, imports and the home page without loading a renderer', async () => {
  const imported = await server.api('POST', '/decks/import', {
    token: user.token, json: { deck: { title: 'Cells' }, cards: [{ front: '**Mitochondrion**', back: '$E=mc^2$' }] },
  });
  assert.equal(imported.status, 201);
  assert.equal((await server.api('GET', `/decks/${imported.body.deckId}`, { token: user.token })).status, 200);
  assert.equal((await fetch(`${server.url}/`)).status, 200);
  assert.deepEqual(loadedRenderers(), []);
});

test('should load the renderers with the first learning view and render its card', async () => {
  const imported = await server.api('POST', '/decks/import', {
    token: user.token, json: { deck: { title: 'Public cells', visibility: 'public' }, cards: [{ front: 'What is **ATP**?', back: 'Energy' }] },
  });
  const page = await fetch(`${server.url}/decks/${imported.body.deckId}`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<strong>ATP<\/strong>/);
  assert.deepEqual(loadedRenderers(), RENDERERS);
});
