import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../helpers/server.ts';
import { standin } from './standin.ts';

test('stand-in smoke', async () => {
  let app: any;
  const server = await startServer({}, { extraRoutes: standin(() => app) });
  app = server.app;
  try {
    const owner = await server.user();
    const imp = await server.api('POST', '/decks/import', { token: owner.token, json: { deck: { title: 'Cells <b>', lang: 'en', visibility: 'unlisted' }, cards: [{ front: 'Q **1** $x^2$', back: '- ✓ yes\n- ✗ no' }, { front: 'Q2', back: 'A2' }] } });
    const deckId = imp.body.deckId;
    let res = await fetch(`${server.url}/decks/${deckId}`);
    console.log(res.status, res.headers.get('x-robots-tag')); let html = await res.text(); console.log(html.slice(0, 3000));
    res = await fetch(`${server.url}/decks/${deckId}`, { headers: { 'x-test-user': owner.userId } });
    html = await res.text(); console.log(res.status, html.slice(0, 3000));
    const sessionId = /name="sessionId" value="([^"]+)"/.exec(html)?.[1]; const cardId = /name="cardId" value="([^"]+)"/.exec(html)?.[1];
    res = await fetch(`${server.url}/decks/${deckId}/review`, { method: 'POST', redirect: 'manual', headers: { 'x-test-user': owner.userId, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ sessionId: sessionId!, cardId: cardId!, rating: 'good' }) });
    console.log(res.status, res.headers.get('location'), await res.text());
    res = await fetch(`${server.url}/decks/${deckId}/edit`, { headers: { 'x-test-user': owner.userId } });
    html = await res.text(); console.log(res.status, html.slice(0, 6000));
  } finally { await server.close(); }
});
