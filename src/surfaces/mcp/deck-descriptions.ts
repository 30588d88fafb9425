// Descriptions of the deck lifecycle, public deck and connector tools (deck-tools.ts), for a model.
// Short: every word is in tools/list, which stays under 64 KB.

export const DELETE_DECK = 'Move a deck to the trash (restorable for 30 days, then purged). Ask the user first.';

export const RESTORE_DECK = 'Bring a deck back from the trash, whole.';

export const LIST_TRASH = "The user's deleted decks with deletedAt and purgeAt.";

export const EXPORT_DECK_MARKDOWN = 'A deck as deck markdown, which import_deck takes back.';

export const LIST_PUBLIC_DECKS = "Every user's public decks; q, tag and lang filter.";

export const GET_PUBLIC_DECK = 'Read a public or unlisted deck with its cards.';

export const COPY_PUBLIC_DECK = "Copy a public or unlisted deck into the user's decks (private). Pass idempotencyKey.";

export const SEARCH = "Search the user's decks and cards: [{id, title, url}]. fetch gives the full text.";

export const FETCH = 'Full text of a deck or card by an id from search.';
