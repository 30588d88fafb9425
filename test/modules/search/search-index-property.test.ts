// The full-text index against a scan of the same data: after any sequence of writes (imports,
// appends, card and deck updates, update imports, deletes, restores), GET /decks?q= and
// GET /search?q= find exactly what reading every deck and matching words by hand finds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { buildForSuite } from '../../helpers/server.ts';

const WORDS = ['alpha', 'Beta', 'gamma', 'délta', 'epsilon', 'zeta'];
const phrase = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));
const card = fc.record({ front: phrase, back: phrase });

type Command =
  | { kind: 'import'; title: string; tags: string[]; cards: { front: string; back: string }[] }
  | { kind: 'append'; deck: number; cards: { front: string; back: string }[] }
  | { kind: 'patchCard'; deck: number; card: number; front: string }
  | { kind: 'patchDeck'; deck: number; title: string }
  | { kind: 'update'; deck: number; cards: { front: string; back: string }[] }
  | { kind: 'delete'; deck: number }
  | { kind: 'restore'; deck: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('import' as const), title: phrase, tags: fc.array(fc.constantFrom(...WORDS), { maxLength: 2 }), cards: fc.array(card, { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('append' as const), deck: fc.nat(), cards: fc.array(card, { minLength: 1, maxLength: 2 }) }),
  fc.record({ kind: fc.constant('patchCard' as const), deck: fc.nat(), card: fc.nat(), front: phrase }),
  fc.record({ kind: fc.constant('patchDeck' as const), deck: fc.nat(), title: phrase }),
  fc.record({ kind: fc.constant('update' as const), deck: fc.nat(), cards: fc.array(card, { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('delete' as const), deck: fc.nat() }),
  fc.record({ kind: fc.constant('restore' as const), deck: fc.nat() }),
);

/** The scan's own idea of a word: lower case, accents dropped, letters and digits. */
function words(text: string | null | undefined): Set<string> {
  return new Set((text ?? '').normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}
const holdsAll = (haystack: Set<string>, needles: string[]) => needles.every((n) => haystack.has(n));

describe('the search index against a scan of the same data', () => {
  const suite = buildForSuite({ env: { DECK_LIMIT: '' } });

  test('should find exactly what a scan finds after any sequence of writes', async () => {
    await fc.assert(fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 10 }), fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 2 }), async (commands, query) => {
      const { token } = await suite.server.user();
      const decks: string[] = [];
      const pick = (i: number) => decks[i % decks.length];
      for (const c of commands) {
        if (c.kind === 'import') {
          const res = await suite.server.api('POST', '/decks/import', { token, json: { deck: { title: c.title, lang: 'en', tags: c.tags }, cards: c.cards } });
          decks.push(res.body.deckId);
          continue;
        }
        if (decks.length === 0) continue;
        const deckId = pick(c.deck);
        if (c.kind === 'append') await suite.server.api('POST', `/decks/${deckId}/cards`, { token, json: { cards: c.cards } });
        if (c.kind === 'patchDeck') await suite.server.api('PATCH', `/decks/${deckId}`, { token, json: { title: c.title } });
        if (c.kind === 'update') await suite.server.api('POST', `/decks/import?mode=update&targetDeckId=${deckId}`, { token, json: { deck: { title: 'Updated', lang: 'en' }, cards: c.cards } });
        if (c.kind === 'delete') await suite.server.api('DELETE', `/decks/${deckId}`, { token });
        if (c.kind === 'restore') await suite.server.api('POST', `/decks/${deckId}/restore`, { token });
        if (c.kind === 'patchCard') {
          const deck = await suite.server.api('GET', `/decks/${deckId}`, { token });
          if (deck.status !== 200) continue;
          const target = deck.body.cards[c.card % deck.body.cards.length];
          await suite.server.api('PATCH', `/decks/${deckId}/cards/${target.id}`, { token, json: { front: c.front } });
        }
      }
      // The scan: every deck the user has, read whole.
      const expectedDecks = new Set<string>();
      const expectedCards = new Set<string>();
      const q = [...new Set(query.flatMap((w) => [...words(w)]))];
      for (const item of (await suite.server.api('GET', '/decks?limit=100', { token })).body.items) {
        const deck = (await suite.server.api('GET', `/decks/${item.id}`, { token })).body;
        if (holdsAll(words([deck.title, deck.description, ...deck.tags].join(' ')), q)) expectedDecks.add(deck.id);
        for (const c of deck.cards) {
          if (holdsAll(words(`${c.front} ${c.back}`), q)) {
            expectedCards.add(c.id);
            expectedDecks.add(deck.id);
          }
        }
      }
      const text = encodeURIComponent(query.join(' '));
      const foundDecks = (await suite.server.api('GET', `/decks?q=${text}&limit=100`, { token })).body.items.map((d: { id: string }) => d.id);
      const foundCards = (await suite.server.api('GET', `/search?q=${text}&limit=100`, { token })).body.results.map((r: { cardId: string }) => r.cardId);
      assert.deepEqual(new Set(foundDecks), expectedDecks, 'GET /decks?q=');
      assert.equal(foundDecks.length, expectedDecks.size, 'each deck once');
      assert.deepEqual(new Set(foundCards), expectedCards, 'GET /search?q=');
      assert.equal(foundCards.length, expectedCards.size, 'each card once');
    }), { numRuns: 25 });
  });
});
