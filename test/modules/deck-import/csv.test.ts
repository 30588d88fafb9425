import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ApiResponse, buildForSuite } from '../../helpers/server.ts';

function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

const withoutIds = (deck: { cards: { id?: string; front?: string; back?: string }[] }) => deck.cards.map(({ id: _id, ...card }) => card);

const CSV = [
  'front,back,tags,frontType,backType',
  'What is the powerhouse of the cell?,The **mitochondrion**.,biology cells,text,markdown',
  '"A field with a comma, ""quotes""\r\nand a line break",Plain,,,',
  'Euler,$e^{i\\pi} + 1 = 0$,math,,latex',
].join('\r\n');

const EQUIVALENT_JSON = {
  deck: { title: 'Cells', lang: 'en' },
  cards: [
    { front: 'What is the powerhouse of the cell?', back: 'The **mitochondrion**.', extras: { tags: ['biology', 'cells'], frontType: 'text', backType: 'markdown' } },
    { front: 'A field with a comma, "quotes"\r\nand a line break', back: 'Plain' },
    { front: 'Euler', back: '$e^{i\\pi} + 1 = 0$', extras: { tags: ['math'], backType: 'latex' } },
  ],
};

describe('CSV import and export', () => {
  const suite = buildForSuite();

  const csv = (body: string, query = '?title=Cells', headers: Record<string, string> = {}) =>
    suite.server.api('POST', `/decks/import${query}`, { token: suite.user.token, body, headers: { 'content-type': 'text/csv', ...headers } });
  const deckOf = async (deckId: string) => (await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body;

  test('should create a deck from CSV with a header row, the same as from the equivalent JSON', async () => {
    const fromCsv = await csv(CSV);
    assert.equal(fromCsv.status, 201, fromCsv.text);
    assert.equal(fromCsv.body.cardCount, 3);
    assert.equal(fromCsv.body.title, 'Cells');
    const fromJson = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: EQUIVALENT_JSON });
    assert.deepEqual(withoutIds(await deckOf(fromCsv.body.deckId)), withoutIds(await deckOf(fromJson.body.deckId)));
  });

  test('should read columns by position when there is no header row', async () => {
    const res = await csv('Q1,A1,tag1 tag2\nQ2,A2\n');
    assert.equal(res.status, 201, res.text);
    const cards = (await deckOf(res.body.deckId)).cards;
    assert.deepEqual(cards.map((c: { front: string; back: string }) => [c.front, c.back]), [['Q1', 'A1'], ['Q2', 'A2']]);
    assert.deepEqual(cards[0].extras.tags, ['tag1', 'tag2']);
  });

  test('should take columns in any order by their header, and warn of columns it does not read', async () => {
    const res = await csv('notes,back,front\nignored,Answer,Question\n');
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.warnings.map((w: { code: string }) => w.code), ['CSV_COLUMNS_IGNORED']);
    const [card] = (await deckOf(res.body.deckId)).cards;
    assert.deepEqual([card.front, card.back], ['Question', 'Answer']);
  });

  test('should default the title with TITLE_DEFAULTED and honour Anki\'s #separator header', async () => {
    const res = await csv('#separator:tab\n#html:false\nfront\tback\nQ\tA\n', '');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.title, 'Imported deck');
    assert.ok(res.body.warnings.some((w: { code: string }) => w.code === 'TITLE_DEFAULTED'));
    assert.deepEqual(withoutIds(await deckOf(res.body.deckId)).map((c) => [c.front, c.back]), [['Q', 'A']]);
  });

  test('should export a deck as CSV that imports back to the same cards', async () => {
    const created = await csv(CSV);
    const exported = await suite.server.api('GET', `/decks/${created.body.deckId}`, { token: suite.user.token, headers: { accept: 'text/csv' } });
    assert.equal(exported.status, 200);
    assert.match(exported.headers.get('content-type') ?? '', /^text\/csv/);
    assert.ok(exported.text.startsWith('front,back,tags,frontType,backType\r\n'));
    const onItsPath = await suite.server.api('GET', `/decks/${created.body.deckId}/csv`, { token: suite.user.token });
    assert.equal(onItsPath.text, exported.text);
    const again = await csv(exported.text);
    assert.equal(again.status, 201, again.text);
    assert.deepEqual(withoutIds(await deckOf(again.body.deckId)), withoutIds(await deckOf(created.body.deckId)));
  });

  test('should replace the cards of a deck with mode=update, keeping its metadata, matching card ids, and changing nothing on a repeat', async () => {
    const created = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: { deck: { title: 'Kept title', description: 'Kept', lang: 'fr' }, cards: [{ front: 'Q1', back: 'A1' }] } });
    const before = await deckOf(created.body.deckId);
    const update = () => csv('front,back\nQ1,A1\nQ2,A2\n', `?mode=update&targetDeckId=${created.body.deckId}`);
    const first = await update();
    assert.equal(first.status, 200, first.text);
    const after = await deckOf(created.body.deckId);
    assert.equal(after.title, 'Kept title');
    assert.equal(after.description, 'Kept');
    assert.equal(after.lang, 'fr');
    assert.equal(after.cards[0].id, before.cards[0].id, 'the matching card keeps its id');
    const second = await update();
    assert.equal(second.body.version, first.body.version, 'a repeat changes nothing');
  });

  test('should replay a CSV import with the same Idempotency-Key, and refuse the same key for markdown of the same text', async () => {
    const headers = { 'idempotency-key': 'csv-import-key-1' };
    const first = await csv('front,back\nQ,A\n', '?title=Once', headers);
    const replay = await csv('front,back\nQ,A\n', '?title=Once', headers);
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.body.deckId, first.body.deckId);
    const other = await suite.server.api('POST', '/decks/import?title=Once', { token: suite.user.token, body: 'front,back\nQ,A\n', headers: { 'content-type': 'text/markdown', ...headers } });
    assertError(other, 409, 'IDEMPOTENCY_CONFLICT');
  });

  test('should refuse a 251st row with TOO_MANY_CARDS', async () => {
    const rows = Array.from({ length: 251 }, (_, i) => `Q${i},A${i}`);
    assertError(await csv(['front,back', ...rows].join('\n')), 400, 'TOO_MANY_CARDS');
    assert.equal((await csv(['front,back', ...rows.slice(0, 250)].join('\n'))).status, 201);
  });

  test('should refuse a record of a million columns with CSV_TOO_MANY_COLUMNS', async () => {
    const res = await csv(`front,back\n${','.repeat(1_000_000)}\n`);
    assertError(res, 400, 'CSV_TOO_MANY_COLUMNS');
    assert.equal(res.body.error.details.line, 2);
  });

  test('should refuse a quote never closed with CSV_UNCLOSED_QUOTE', async () => {
    const res = await csv('front,back\nQ,"never closed\nQ2,A2\n');
    assertError(res, 400, 'CSV_UNCLOSED_QUOTE');
    assert.equal(res.body.error.details.line, 2);
    // 100,000 quotes: a quick refusal too (a record longer than any card can be).
    const quotes = await csv(`front,back\nQ,"${'"x'.repeat(100_000)}`);
    assert.equal(quotes.status, 400, quotes.text);
  });

  test('should read RFC 4180 edge cases: CRLF and LF, empty lines, a trailing delimiter, a lone CR kept, quotes doubled, no final line end', async () => {
    const res = await csv('front,back\r\n\r\nQ1,A1,\n\nQ2\r2,"A ""2"""\r\n"Q,3","A\n3"');
    assert.equal(res.status, 201, res.text);
    const cards = withoutIds(await deckOf(res.body.deckId));
    assert.deepEqual(cards.map((c) => [c.front, c.back]), [['Q1', 'A1'], ['Q2\r2', 'A "2"'], ['Q,3', 'A\n3']]);
  });

  test('should refuse a record over 64 Ki characters with PARSE_FAILED and the line it starts on', async () => {
    const res = await csv(`front,back\nQ,A\nQ,${'x'.repeat(70_000)}\n`);
    assertError(res, 400, 'PARSE_FAILED');
    assert.equal(res.body.error.details.line, 3);
  });

  test('should leave no deck behind when a CSV import fails on its last row', async () => {
    const before = (await suite.server.api('GET', '/decks?limit=100', { token: suite.user.token })).body.items.length as number;
    const rows = Array.from({ length: 249 }, (_, i) => `Q${i},A${i},,,`);
    assertError(await csv(['front,back,tags,frontType,backType', ...rows, 'Q,A,,rtf,'].join('\n')), 400, 'SCHEMA_INVALID');
    assert.equal((await suite.server.api('GET', '/decks?limit=100', { token: suite.user.token })).body.items.length, before);
  });

  test('should refuse malformed CSV with PARSE_FAILED and a cell of another content type with SCHEMA_INVALID', async () => {
    assertError(await csv('front,back\nQ"x,A\n'), 400, 'PARSE_FAILED');
    const res = await csv('front,back,frontType\nQ,A,rtf\n');
    assertError(res, 400, 'SCHEMA_INVALID');
    assert.equal(res.body.error.details.field, 'cards[0].extras.frontType');
  });
});
