// Where a deck's pages live (DECISIONS "Addresses"): the learning view, and its editor under it.
export function deckPath(deckId: string): string {
  return `/decks/${encodeURIComponent(deckId)}`;
}
