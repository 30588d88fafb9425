// What the input-validation suites share: a server with one user holding one deck, and the
// assertion that a request was refused naming one field.
import assert from 'node:assert/strict';
import { before } from 'node:test';
import { type ApiResponse, type BuildOptions, type TestServer, type TestUser, buildForSuite, createDeck } from './server.ts';

export interface DeckFixture { readonly server: TestServer; readonly user: TestUser; readonly deckId: string; readonly cardId: string }

/**
 * In a describe body: buildForSuite's server and user, and the user's deck of `cards` cards
 * (`cardId` is its first), made before the first test. Read its fields inside the tests.
 */
export function buildForSuiteWithDeck(cards = 1, options: BuildOptions = {}): DeckFixture {
  const suite = buildForSuite(options);
  let deck: { deckId: string; cardId: string } | undefined;
  before(async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, cards);
    const cardId = (await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body.cards[0].id as string;
    deck = { deckId, cardId };
  });
  const get = () => {
    if (deck === undefined) throw new Error('buildForSuiteWithDeck: read the fixture inside a test, after the suite\'s before hooks');
    return deck;
  };
  return {
    get server() { return suite.server; }, get user() { return suite.user; },
    get deckId() { return get().deckId; }, get cardId() { return get().cardId; },
  };
}

export function assertSchemaInvalidAt(res: ApiResponse, field: string, label: string): void {
  assert.equal(res.status, 400, `${label}: ${res.text.slice(0, 300)}`);
  assert.equal(res.body.error.code, 'SCHEMA_INVALID', label);
  assert.equal(res.body.error.details.field, field, `${label}: ${res.text.slice(0, 300)}`);
}

/**
 * The largest deck the API takes: 250 cards with every field at its limit (sides of 4000
 * characters, both images' URLs and alt texts, every extra, a 16 KiB templateData), and the deck's
 * own fields at theirs. About 8 MB as JSON: the largest single API response (GET /decks/{id}).
 */
export function largestDeckBody(): { deck: Record<string, unknown>; cards: Record<string, unknown>[] } {
  const s = (n: number, c = 'x') => c.repeat(n);
  const url = (length: number) => { const head = 'https://img.example.com/'; return head + s(length - head.length, 'a'); };
  const tags = (n: number, width: number) => Array.from({ length: n }, (_, i) => String(i).padStart(width, 't'));
  const media = { imageUrl: url(2048), imageAlt: s(500) };
  return {
    deck: { title: s(200), description: s(5000), lang: 'en', visibility: 'private', tags: tags(20, 40), thumbnail: url(2048) },
    cards: Array.from({ length: 250 }, (_, i) => ({
      front: `${i} ${s(3990)}`.slice(0, 4000), back: s(4000), frontMedia: media, backMedia: media,
      extras: {
        cardType: 'definition', frontType: 'markdown', backType: 'markdown', subject: s(60), topic: s(80), info: s(1000), prompt: s(200),
        tags: tags(10, 30), difficulty: 'medium',
        // 16384 bytes as compact JSON: {"t":"xx...x"} is the string and 8 bytes.
        templateData: { t: s(16_384 - 8) },
      },
    })),
  };
}
