// A deck with a title and no cards yet: the pages' `New deck`, which then opens the editor. The
// API has no such call (an import needs at least one card), so this is the one place an empty
// deck is made; it goes through the same validation (the deck metadata schema), the same deck
// capacity (DECK_LIMIT_REACHED) and the same write (createDeck) as an import.
import type { ServiceContext } from '../../context.ts';
import { assertBody } from '../../validation.ts';
import type { Actor } from '../identity/principal.ts';
import { deckFieldsFromMeta } from './deck-fields.ts';
import { createDeck } from './deck-write.ts';
import type { DeckRecord } from './decks.repository.ts';
import { DeckMetaInputSchema } from './decks.schemas.ts';

export interface NewDeckInput {
  title: string;
  /** The deck's language (BCP 47); `en` when not given, as for an import. */
  lang?: string;
}

export async function createEmptyDeck(ctx: ServiceContext, actor: Actor, input: NewDeckInput): Promise<Pick<DeckRecord, 'id' | 'title' | 'updatedAt'>> {
  const meta = assertBody(DeckMetaInputSchema, { title: input.title.trim(), lang: input.lang ?? 'en' });
  return createDeck(ctx, actor, {
    fields: deckFieldsFromMeta(meta, []),
    cardCount: 0,
    apply: async () => {},
    result: (deck) => ({ id: deck.id, title: deck.title, updatedAt: deck.updatedAt }),
  });
}
