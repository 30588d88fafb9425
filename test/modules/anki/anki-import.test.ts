import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type ApiResponse, buildForSuite } from '../../helpers/server.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/anki');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name));

function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

describe('POST /decks/import/apkg with packages other tools made', () => {
  const suite = buildForSuite({ socket: true });

  const importApkg = (body: Buffer, query = '', headers: Record<string, string> = {}) =>
    suite.server.api('POST', `/decks/import/apkg${query}`, { token: suite.user.token, body, headers: { 'content-type': 'application/octet-stream', ...headers } });
  const deckOf = async (deckId: string) => (await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body;

  test('should import an anki-apkg-export package: HTML sanitised, the first image stored, audio and extra images as warnings', async () => {
    const res = await importApkg(fixture('anki-apkg-export.apkg'));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.decks.length, 1);
    const [result] = res.body.decks;
    assert.equal(result.title, 'Biology basics');
    assert.equal(result.cardCount, 3);
    const codes = result.warnings.map((w: { code: string }) => w.code);
    assert.ok(codes.includes('AUDIO_SKIPPED'), codes.join());
    assert.ok(codes.includes('IMAGES_DROPPED'), codes.join());
    const deck = await deckOf(result.deckId);
    const [first, second, third] = deck.cards;
    assert.equal(first.front, 'What is the <b>powerhouse</b> of the cell?'.replace(/<\/?b>/g, ''));
    assert.deepEqual([first.extras.frontType, first.extras.backType], ['html', 'html']);
    assert.deepEqual(first.extras.tags, ['biology', 'cells']);
    assert.match(first.backMedia.imageUrl, /^\/media\/[0-9a-f]{64}\.png$/);
    assert.equal(first.backMedia.imageAlt, 'A cell');
    const image = await fetch(`${suite.server.url}${first.backMedia.imageUrl}`);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/png');
    assert.equal(second.back, 'Lub-dub');
    assert.match(third.frontMedia.imageUrl, /^\/media\//);
    assert.ok(!third.back.includes('script'), 'the script is gone');
  });

  test('should import a genanki-js package: one deck per Anki deck, cloze cards, extra fields in extras.info', async () => {
    const res = await importApkg(fixture('genanki-js.apkg'), '', { 'content-type': 'application/apkg' });
    assert.equal(res.status, 201, res.text);
    const titles = res.body.decks.map((d: { title: string }) => d.title).sort();
    assert.deepEqual(titles, ['Chemistry', 'Geography::Europe']);
    const europe = res.body.decks.find((d: { title: string }) => d.title === 'Geography::Europe');
    const deck = await deckOf(europe.deckId);
    assert.equal(deck.cards.length, 3, 'one basic card and one card per cloze');
    const [basic, cloze1, cloze2] = deck.cards;
    assert.equal(basic.extras.info, 'Notes: Also its largest city');
    assert.match(basic.backMedia.imageUrl, /^\/media\//);
    assert.equal(cloze1.front, '[...] is the capital of France.');
    assert.equal(cloze2.front, 'Paris is the capital of [a country].');
    assert.equal(cloze1.back, 'Paris is the capital of France.<hr>Seat of government');
  });

  test('should import one Anki deck picked with ?deck= by name or id, and refuse an unknown one with APKG_DECK_NOT_FOUND', async () => {
    const byName = await importApkg(fixture('genanki-js.apkg'), '?deck=Chemistry');
    assert.equal(byName.status, 201, byName.text);
    assert.deepEqual(byName.body.decks.map((d: { title: string }) => d.title), ['Chemistry']);
    const byId = await importApkg(fixture('genanki-js.apkg'), '?deck=1700000000001');
    assert.deepEqual(byId.body.decks.map((d: { title: string }) => d.title), ['Geography::Europe']);
    assertError(await importApkg(fixture('genanki-js.apkg'), '?deck=Nope'), 400, 'APKG_DECK_NOT_FOUND');
  });
});
