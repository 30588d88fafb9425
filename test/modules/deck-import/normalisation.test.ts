import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDeck, buildForSuite } from '../../helpers/server.ts';

type Warning = { code: string; message: string; cardIndex?: number };

describe('normalisation and import warnings', () => {
  const suite = buildForSuite();

  async function importJson(cards: unknown[], deck: Record<string, unknown> = { title: 'N', lang: 'en' }) {
    const res = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: { deck, cards } });
    assert.equal(res.status, 201, res.text);
    const read = await suite.server.api('GET', `/decks/${res.body.deckId}`, { token: suite.user.token });
    return { result: res.body, deck: read.body, warnings: (res.body.warnings ?? []) as Warning[] };
  }
  async function importMarkdown(text: string) {
    const res = await suite.server.api('POST', '/decks/import', { token: suite.user.token, body: text, headers: { 'content-type': 'text/markdown' } });
    assert.equal(res.status, 201, res.text);
    const read = await suite.server.api('GET', `/decks/${res.body.deckId}`, { token: suite.user.token });
    return { deck: read.body, warnings: (res.body.warnings ?? []) as Warning[] };
  }
  const codes = (warnings: Warning[]) => warnings.map((w) => w.code);

  test('should return no warnings for a clean import', async () => {
    const { warnings } = await importJson([{ front: 'Capital of France?', back: 'Paris' }]);
    assert.deepEqual(warnings, []);
  });

  test('should normalise the retired card types to basic and definition, and never return them', async () => {
    const { deck } = await importJson([
      { front: 'q', back: 'a', extras: { cardType: 'image-question' } },
      { front: 'q', back: 'a', extras: { cardType: 'image-explanation' } },
    ]);
    assert.deepEqual(deck.cards.map((c: { extras: { cardType: string } }) => c.extras.cardType), ['basic', 'definition']);
    const appended = await suite.server.api('POST', `/decks/${deck.id}/cards`, { token: suite.user.token, json: { cards: [{ front: 'q', extras: { cardType: 'image-question' } }] } });
    assert.equal(appended.body.cards[0].extras.cardType, 'basic');
    const patched = await suite.server.api('PATCH', `/decks/${deck.id}/cards/${deck.cards[0].id}`, { token: suite.user.token, json: { extras: { cardType: 'image-explanation' } } });
    assert.equal(patched.body.extras.cardType, 'definition');
    const markdown = await suite.server.api('GET', `/decks/${deck.id}`, { token: suite.user.token, headers: { accept: 'text/markdown' } });
    assert.doesNotMatch(markdown.text, /image-(question|explanation)/);
  });

  test('should turn the deprecated template into cardType with TEMPLATE_DEPRECATED per card', async () => {
    const { deck, warnings } = await importJson([
      { front: 'q', back: 'a', extras: { template: 'default' } },
      { front: 'E = mc^2', back: 'energy', extras: { template: 'math' } },
      { front: 'print(1)', back: '1', extras: { template: 'code' } },
      { front: 'q', back: 'a', extras: { template: 'math', cardType: 'definition' } },
    ]);
    assert.deepEqual(deck.cards.map((c: { extras: { cardType: string } }) => c.extras.cardType), ['basic', 'formula', 'code-behavior', 'definition']);
    for (const card of deck.cards) assert.equal('template' in card.extras, false);
    const deprecated = warnings.filter((w) => w.code === 'TEMPLATE_DEPRECATED');
    assert.deepEqual(deprecated.map((w) => w.cardIndex), [0, 1, 2, 3]);
  });

  test('should resolve frontType and backType from the card type', async () => {
    const markdownTypes = ['basic', 'definition', 'explanation', 'comparison', 'procedure', 'pitfall', 'code-behavior'];
    const { deck } = await importJson([
      ...markdownTypes.map((cardType) => ({ front: 'x = 1', back: 'y', extras: { cardType } })),
      { front: 'q', back: 'a' },
      { front: 'a^2 + b^2 = c^2', back: 'Pythagoras', extras: { cardType: 'formula' } },
      { front: 'Pythagoras', back: 'a^2 + b^2 = c^2', extras: { cardType: 'name-formula', direction: 'name->formula' } },
      { front: 'a^2 + b^2 = c^2', back: 'Pythagoras', extras: { cardType: 'name-formula', direction: 'formula->name' } },
      { front: 'q', back: 'a', extras: { cardType: 'formula', frontType: 'text', backType: 'html' } },
    ]);
    const types = deck.cards.map((c: { extras: { frontType: string; backType: string } }) => `${c.extras.frontType}/${c.extras.backType}`);
    assert.deepEqual(types, [
      ...markdownTypes.map(() => 'markdown/markdown'),
      'markdown/markdown',
      'latex/markdown',
      'markdown/latex',
      'latex/markdown',
      'text/html',
    ]);
  });

  test('should resolve the types on append and after a card patch too', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    const appended = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, json: { cards: [{ front: 'x^2', extras: { cardType: 'formula' } }] } });
    assert.equal(appended.body.cards[0].extras.frontType, 'latex');
    const patched = await suite.server.api('PATCH', `/decks/${deckId}/cards/${appended.body.cards[0].id}`, {
      token: suite.user.token, json: { extras: { cardType: 'name-formula', direction: 'formula->name' } },
    });
    assert.equal(patched.body.extras.frontType, 'latex');
    assert.equal(patched.body.extras.backType, 'markdown');
  });

  test('should trim deck tags, drop empty ones and de-duplicate case-insensitively keeping the first spelling', async () => {
    const { deck } = await importJson([{ front: 'q' }], { title: 'Tags', lang: 'en', tags: [' Biology', 'cells ', '', 'BIOLOGY', 'Cells', 'dna'] });
    assert.deepEqual(deck.tags, ['Biology', 'cells', 'dna']);
    const md = await importMarkdown('---\nversion: 1\nlang: en\ntags: ["  Chem ", chem, "", Atoms]\n---\n# T\n\n## Front\nq\n');
    assert.deepEqual(md.deck.tags, ['Chem', 'Atoms']);
  });

  test('should default lang to en with LANG_DEFAULTED, from JSON and from markdown', async () => {
    const json = await importJson([{ front: 'q' }], { title: 'No lang' });
    assert.equal(json.deck.lang, 'en');
    assert.deepEqual(codes(json.warnings), ['LANG_DEFAULTED']);
    assert.equal(json.warnings[0].cardIndex, undefined);
    const md = await importMarkdown('---\nversion: 1\n---\n# No lang\n\n## Front\nq\n');
    assert.equal(md.deck.lang, 'en');
    assert.deepEqual(codes(md.warnings), ['LANG_DEFAULTED']);
    const given = await importMarkdown('---\nversion: 1\nlang: pl\n---\n# Polski\n\n## Front\nq\n');
    assert.equal(given.deck.lang, 'pl');
    assert.deepEqual(given.warnings, []);
  });

  test('should accept a markdown card without a Front section, with FRONT_SECTION_MISSING and its cardIndex', async () => {
    const md = await importMarkdown('---\nversion: 1\nlang: en\n---\n# T\n\n## Front\nq\n\n## Back\na\n\n---\n\n## Back\nOnly a back\n');
    assert.equal(md.deck.cards[1].back, 'Only a back');
    assert.equal(md.deck.cards[1].front, null);
    const missing = md.warnings.filter((w) => w.code === 'FRONT_SECTION_MISSING');
    assert.deepEqual(missing.map((w) => w.cardIndex), [1]);
  });

  test('should warn CONTENT_TYPE_MISMATCH_TEXT_LOOKS_RICH for a text side holding markdown or math markers', async () => {
    const rich = ['Area is $\\pi r^2$', 'This is **bold**', '# Heading', '- one\n- two', '```\ncode\n```', 'See [docs](https://example.com)', '| a | b |\n|---|---|\n| 1 | 2 |'];
    const { warnings } = await importJson([
      ...rich.map((front) => ({ front, back: 'x', extras: { frontType: 'text' } })),
      { front: 'Plain words only', back: 'x', extras: { frontType: 'text' } },
      { front: 'q', back: 'Uses **bold**', extras: { backType: 'text' } },
      { front: 'This is **bold** markdown', back: 'x' },
    ]);
    const mismatched = warnings.filter((w) => w.code === 'CONTENT_TYPE_MISMATCH_TEXT_LOOKS_RICH');
    assert.deepEqual(mismatched.map((w) => w.cardIndex), [0, 1, 2, 3, 4, 5, 6, 8]);
  });

  test('should warn CARD_TYPE_FORMULA_FRONT_NOT_MATH for a formula card whose front is a question or plain words', async () => {
    const { warnings } = await importJson([
      { front: 'What is the area of a circle?', back: 'A = \\pi r^2', extras: { cardType: 'formula' } },
      { front: 'Area of a circle', back: 'x', extras: { cardType: 'formula' } },
      { front: 'A = \\pi r^2', back: 'Area of a circle', extras: { cardType: 'formula' } },
      { front: 'What is the area of a circle?', back: 'x', extras: { cardType: 'basic' } },
    ]);
    const notMath = warnings.filter((w) => w.code === 'CARD_TYPE_FORMULA_FRONT_NOT_MATH');
    assert.deepEqual(notMath.map((w) => w.cardIndex), [0, 1]);
    for (const w of warnings) assert.equal(typeof w.message, 'string');
  });
});
