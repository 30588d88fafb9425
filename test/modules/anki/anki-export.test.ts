import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readAnkiPackage } from 'anki-reader';
import { noisyPng, png } from '../../helpers/images.ts';
import { buildForSuite } from '../../helpers/server.ts';

type Card = { id?: string; order?: number } & Record<string, unknown>;
const content = (deck: { cards: Card[] }) => deck.cards.map(({ id: _id, order: _order, ...rest }) => rest);
const meta = (deck: Record<string, unknown>) => {
  const { title, description, lang, visibility, tags, thumbnail, cardCount } = deck;
  return { title, description, lang, visibility, tags, thumbnail, cardCount };
};

describe('GET /decks/{deckId}/apkg', () => {
  const suite = buildForSuite({ socket: true });

  const upload = async (body: Buffer): Promise<string> => {
    const res = await suite.server.api('POST', '/media', { token: suite.user.token, body, headers: { 'content-type': 'image/png' } });
    assert.equal(res.status, 201, res.text);
    return res.body.url as string;
  };

  test('should export a package an independent reader opens, with its images, that imports back to the same deck', async () => {
    const cell = await upload(png(9, 9, 40));
    const heart = await upload(noisyPng(5, 5));
    const created = await suite.server.api('POST', '/decks/import', {
      token: suite.user.token,
      json: {
        deck: { title: 'Biologie <cellulaire> & co', description: 'Cells, "quoted" --> and all', lang: 'fr', visibility: 'unlisted', tags: ['bio', 'Cells'] },
        cards: [
          { front: 'What is the **powerhouse**?', back: 'The mitochondrion', frontMedia: { imageUrl: cell, imageAlt: 'A cell' }, extras: { tags: ['organelles', 'two words'], info: 'More *here*', subject: 'Biology' } },
          { front: 'E = mc^2', back: 'Mass–energy', extras: { cardType: 'formula' } },
          { front: '<p>Plain <mark>html</mark></p>', back: `Markdown image ![heart](${heart})`, extras: { frontType: 'html' } },
          { front: 'One-sided plain text\nwith a line break', back: null, oneSided: true, extras: { frontType: 'text' } },
          { front: 'Remote image', back: 'x', backMedia: { imageUrl: 'https://example.com/a.png', imageAlt: null } },
        ],
      },
    });
    assert.equal(created.status, 201, created.text);
    const original = (await suite.server.api('GET', `/decks/${created.body.deckId}`, { token: suite.user.token })).body;

    const res = await fetch(`${suite.server.base}/decks/${created.body.deckId}/apkg`, { headers: { authorization: `Bearer ${suite.user.token}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/apkg');
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="Biologie cellulaire co\.apkg"/);
    const bytes = Buffer.from(await res.arrayBuffer());

    // An Anki reader this project did not write (anki-reader, on sql.js) opens it.
    const { collection, media } = await readAnkiPackage(new Blob([bytes]));
    const decks = Object.values(collection.getDecks()).filter((d) => d.getName() === original.title);
    assert.equal(decks.length, 1);
    const cards = Object.values(decks[0].getCards());
    assert.equal(cards.length, 5);
    const fronts = cards.map((c) => c.getFront());
    assert.ok(fronts.some((f) => f.includes('<strong>powerhouse</strong>') && /<img src="[0-9a-f]{64}\.png" alt="A cell">/.test(f)), fronts.join('\n'));
    assert.ok(fronts.includes('\\[E = mc^2\\]'), 'a latex side as Anki math');
    assert.ok(fronts.includes('One-sided plain text<br>with a line break'));
    const backs = cards.map((c) => c.getBack());
    assert.ok(backs.some((b) => /<img src="[0-9a-f]{64}\.png" alt="heart"/.test(b)), backs.join('\n'));
    assert.deepEqual(Object.keys(media).sort(), [cell, heart].map((u) => u.slice('/media/'.length)).sort());
    const served = Buffer.from(await (await fetch(`${suite.server.url}${cell}`)).arrayBuffer());
    assert.deepEqual(Buffer.from(await media[cell.slice('/media/'.length)].arrayBuffer()), served);

    // And importing it here gives the same deck back.
    const again = await suite.server.api('POST', '/decks/import/apkg', { token: suite.user.token, body: bytes, headers: { 'content-type': 'application/apkg' } });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.decks.length, 1);
    const copy = (await suite.server.api('GET', `/decks/${again.body.decks[0].deckId}`, { token: suite.user.token })).body;
    assert.deepEqual(meta(copy), meta(original));
    assert.deepEqual(content(copy), content(original));
  });

  test('should refuse another user\'s deck with DECK_FORBIDDEN', async () => {
    const created = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: { deck: { title: 'Mine' }, cards: [{ front: 'Q', back: 'A' }] } });
    const other = await suite.server.user();
    const res = await suite.server.api('GET', `/decks/${created.body.deckId}/apkg`, { token: other.token });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'DECK_FORBIDDEN');
  });
});
