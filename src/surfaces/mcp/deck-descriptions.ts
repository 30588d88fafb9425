// Descriptions of the deck lifecycle, public deck and search tools (deck-tools.ts), for a model.
// Short: every word is in tools/list, which stays under 64 KB.

export const DELETE_DECK = 'Move a deck to the trash (restore_deck brings it back within 30 days; then it is purged). It disappears from every list, search and read at once. Ask the user first.';

export const RESTORE_DECK = 'Bring a deck back from the trash, whole (same ids, cards, review history). Answers the deck.';

export const LIST_TRASH = "The user's deleted decks, newest first, each with deletedAt and purgeAt. Pass nextToken as token for the next page.";

export const EXPORT_DECK_MARKDOWN = 'A deck as a deck markdown document (markdown), which import_deck takes back unchanged.';

export const LIST_PUBLIC_DECKS = "Every user's public decks (never unlisted or private), newest first or matching q by relevance; tag and lang filter. No owner details.";

export const GET_PUBLIC_DECK = 'Read a public or unlisted deck of any user, with its cards.';

export const COPY_PUBLIC_DECK = "Copy a public or unlisted deck into the user's own decks as a new private deck (new card ids). Pass idempotencyKey so a retry does not copy twice.";

export const SEARCH = "Search the user's decks and cards: results [{id, title, url}] (deck ids dck_..., card ids crd_...; url is the deck's learning view). Use fetch for the full text.";

export const FETCH = 'The full text of a deck (as deck markdown) or a card (front and back) by an id from search: {id, title, text, url, metadata}.';
