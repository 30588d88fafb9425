// A deck read's JSON bytes, rendered once per deck version and kept in the app's body cache
// (src/stores/body-cache.ts): every deck write moves the version, so held bytes are never stale.
import type { ServiceContext } from '../../context.ts';
import { deckDetailText, deckHeadJson } from './decks.mappers.ts';
import type { DeckRecord, StoredCard } from './decks.repository.ts';

/** Renders the deck as it is committed (callers make sure of that) and keeps the bytes. */
export function renderDeckBody(ctx: ServiceContext, deck: DeckRecord, cards: StoredCard[]): Buffer {
  const body = Buffer.from(deckDetailText(deckHeadJson(deck, ctx.publicUrl), cards));
  ctx.deckBodies.set(deck.id, { ownerId: deck.userId, version: deck.updatedAt, body });
  return body;
}
