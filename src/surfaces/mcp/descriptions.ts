// The tools' descriptions, written for a model: what the tool does, the limits and formats that
// matter, the spec's soft authoring targets. buildTools (tools.ts) adds the scope and, from the API
// route's documented error responses, its error codes; the instructions say what to do about each
// (advice.ts). Every word is in tools/list, which stays under 64 KB (DECISIONS "MCP").
import { adviceParagraph } from './advice.ts';

const CARD_RULES = [
  'A card: front and back (strings, max 4000 characters each; at least one non-empty), optional oneSided, frontMedia/backMedia ({imageUrl: https:// URL or root-relative /path, imageAlt}), extras (cardType basic|formula|definition|name-formula|code-behavior|comparison|procedure|explanation|pitfall; frontType/backType text|markdown|html|latex; subject max 60, topic max 80, info max 1000, prompt max 200, tags max 10 x 30, difficulty easy|medium|hard).',
  'Write good cards: one fact per card; front up to about 80 characters, back up to about 350; tables at most 4 columns by 6 rows; lists at most 5 items. Use markdown (the default) for formatted text, latex for an equation-only side; never put markdown or $math$ in a side typed text. The back is labelled as the answer and subject/topic/card type are shown by the page: do not repeat them in the text.',
  'The resources flashdeck://guides/content-rules and flashdeck://guides/deck-markdown give every rule.',
].join(' ');

export const WHOAMI = 'Identify the token this connection uses: its user id, name, prefix, source (pat or oauth) and scopes. A cheap connection test; call it first when a scope error is possible.';

export const GET_CAPACITY = 'Whether the user may create another deck: can_create, current_decks, deck_limit (null: no limit). Check it before import_deck with mode "create" when the user has many decks.';

export const LIST_DECKS = "List the user's decks (summaries without cards), most recently updated first. limit 1 to 100 (default 25). When nextToken is not null, pass it as token to get the next page; a token you did not get from this tool is BAD_REQUEST.";

export const GET_DECK = 'Read one deck with its complete card set (up to 250 cards, in order; each card has id and 0-based order). `version` is the deck\'s concurrency token: pass it as ifMatch to a later write so it fails with VERSION_MISMATCH instead of overwriting a change made meanwhile.';

export const CSV_ARG = 'The cards as CSV (RFC 4180): a header row naming front, back and optionally tags (space-separated), frontType, backType, then one card a row; title and lang name a new deck. Give deck and cards, markdown, or csv; only one.';
export const MARKDOWN_ARG = 'The whole deck as one deck markdown document (front matter, "# Title", cards separated by "---" lines, each with "## Front" and "## Back"): see the resource flashdeck://guides/deck-markdown. Give either markdown, or deck and cards; not both.';

export const IMPORT_DECK = [
  'Create a deck (mode "create", the default: result status 201) or replace the metadata and the whole card list of an existing deck of the user (mode "update" with targetDeckId). Give the deck either as deck ({title 1-200, description max 5000, lang like en or pt-BR (default en), visibility private (default)|unlisted|public, tags max 20 x 40, thumbnail https URL}) and cards (1 to 250), or as one markdown document.',
  CARD_RULES,
  'Pass an idempotencyKey (8 to 128 characters, e.g. a UUID) with every create, and reuse the same key when you retry after an error or a timeout: the retry returns the first result instead of creating a second deck. mode "update" keeps the id and review history of every card whose content is unchanged; repeating it changes nothing. Pass the deck\'s version as ifMatch to refuse the update if the deck changed. warnings in the result name non-fatal problems (with cardIndex): consider fixing those cards with update_card.',
].join('\n\n');

/** For the tools that take cards besides import_deck, whose description has the rules. */
const CARD_RULES_REF = 'Cards take the fields and follow the rules given under import_deck.';

export const APPEND_CARDS = [
  'Append 1 to 250 cards at the end of one of the user\'s decks; existing cards are never changed. The deck may hold at most 250 cards in all.',
  CARD_RULES_REF,
  'idempotencyKey is required (8 to 128 characters, e.g. a UUID): make a new one for each new append, and reuse the same key when you retry this append after an error or a timeout; the retry then returns the first result and never adds the cards twice. Keys are kept 24 hours. ifMatch (optional): the deck version you read.',
].join('\n\n');

export const UPDATE_DECK = 'Change a deck\'s metadata: any of title (1-200), description (max 5000 or null), lang, visibility (private|unlisted|public), tags (max 20 x 40; trimmed, duplicates dropped), thumbnail (https URL or null). Give deckId and at least one field; cards are not changed here (use update_card, append_cards or import_deck). Returns the whole deck; an update that changes nothing keeps its version. Pass the version you read as ifMatch to avoid overwriting a concurrent change.';

export const UPDATE_CARD = [
  'Change one card of a deck: give deckId, cardId (from get_deck) and at least one of front, back, oneSided, frontMedia, backMedia, extras. Fields not given keep their values; extras, when given, replaces the whole extras object. Pass the deck version as ifMatch to avoid overwriting a concurrent change. Returns the updated card.',
  CARD_RULES_REF,
].join('\n\n');

export const START_REVIEW = 'Start a review session for one of the user\'s decks. resume true returns the deck\'s active session if there is one (same queue, answers kept), else starts one; without resume a new session starts and an active one of that deck is abandoned, so pass resume true unless the user asks to start over. relearn true: a card rated again comes back at the end of the queue (up to 3 times). The result\'s cards is the queue of card ids: cards due now, then new cards; it may be empty (nothing due). next is the card to show now (null when done). Show its front, let the user answer, record the rating with answer_card (whose result has the following next); finish with complete_review.';

export const GET_REVIEW = 'Read a review session: status (active, completed, abandoned), the queue (cards), the answers so far, progress {answered, remaining, total} and, once completed, stats.';

export const ANSWER_CARD = 'Record how well the user recalled one card of an active session: rating again (forgot), hard, good or easy; durationMs optional (time spent, 0 to 86400000). One answer per card: the same rating again returns the stored record. The result gives progress and when the card is due next (FSRS scheduling per user and card).';

export const GET_CARD = 'Read one card of a deck by deckId and cardId.';

export const DELETE_CARD = 'Delete one card of a deck; later cards move up one. Returns the deck\'s cardCount and new version. ifMatch optional.';

export const MOVE_CARD = 'Move one card to a 0-based order (0 to cardCount - 1); the cards between shift by one. Returns the card and the deck version. ifMatch optional.';

export const UPDATE_CARDS = 'Change many cards of one deck at once: cards is 1 to 250 entries, each {id, ...fields as in update_card}. All entries apply or none; one new version. Returns every named card as it now is. idempotencyKey and ifMatch optional.';

export const LIST_DUE = 'Per deck of the user: cards due now (due), never reviewed (new) and the next due time (nextDueAt), with totals.';

export const GET_SCHEDULE = 'Each card of a deck with its FSRS state (new, learning, review, relearning), due time, stability, difficulty, reps, lapses.';

export const LIST_REVIEWS = 'The user\'s review sessions, newest first, optionally by deckId and status; pass nextToken as token for the next page.';

export const COMPLETE_REVIEW = 'Complete a review session and get its statistics: total, answered, skipped, counts per rating, accuracy (share not rated again), durations, and the next due time of each answered card. Completing again returns the same statistics.';

/** The server's instructions (initialize result): what every tool shares. */
export const INSTRUCTIONS = [
  'Flashdeck holds the user\'s flashcard decks (up to 250 cards each) and their review sessions. Read flashdeck://guides/content-rules and flashdeck://guides/deck-markdown before writing cards.',
  'A successful tool result carries structuredContent (the same JSON as the Flashdeck HTTP API returns) and a one-line text. A failed call is a result with isError true whose text is the API\'s error as JSON, {"error": {"code", "message", "details"}}: branch on code. Any tool may return RATE_LIMITED (each token has a number of calls per minute and per day, 60 and 2000 unless the operator set others; details.window names the window that is spent: wait for the next one, then retry), INTERNAL_ERROR (retry once after a short pause) or SERVICE_UNAVAILABLE (retry after a few seconds).',
  'Writes that create things (import_deck, append_cards) take an idempotencyKey: reuse it when retrying so nothing is created twice. Writes to a deck take ifMatch (the deck version you read) to refuse overwriting a concurrent change.',
  adviceParagraph(),
].join('\n\n');
