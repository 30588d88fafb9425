// What a model should do about each error code: said once in the server's instructions, each tool's
// description naming its codes (an error result's text is the API's envelope alone). The codes and their HTTP statuses are the catalog's (src/errors.ts).
import type { ErrorCode } from '../../errors.ts';

export const ADVICE: Partial<Record<ErrorCode, string>> = {
  BAD_REQUEST: 'an argument is malformed (details.field names it): fix it and call again',
  SCHEMA_INVALID: 'a field breaks a rule (details.field names it, details.errors lists every problem): fix those fields and call again',
  PARSE_FAILED: 'the markdown cannot be read (details.line): fix it as the resource flashdeck://guides/deck-markdown describes and call again',
  TOO_MANY_CARDS: 'a deck holds at most 250 cards: send fewer cards, or split the material into several decks',
  FORBIDDEN: 'the token lacks the scope in details.requiredScope: do not retry; tell the user which scope the token needs',
  DECK_FORBIDDEN: "the deck belongs to another user: do not retry; list_decks shows the user's own decks",
  DECK_NOT_FOUND: "no deck of this user has that id: check it with list_decks",
  CARD_NOT_FOUND: 'the card is not in this deck (or not in the session queue): read the deck (get_deck) or the session (get_review) for valid card ids',
  SESSION_NOT_FOUND: 'no session of this user has that id: start one with start_review',
  DECK_LIMIT_REACHED: 'the user is at deck capacity (get_capacity): update an existing deck instead (mode "update") or ask the user to make room',
  IDEMPOTENCY_CONFLICT: 'this idempotencyKey was used for a different request: use a new key for a new request',
  IDEMPOTENCY_KEY_IN_USE: 'the first call with this key is still running: wait a second, then repeat the same call with the same key',
  VERSION_MISMATCH: 'the deck changed since you read its version: read it again (get_deck), re-apply your change, and pass the new version as ifMatch',
  ANSWER_CONFLICT: 'the card was already answered in this session with another rating: move on to the next card',
  SESSION_NOT_ACTIVE: 'the session is completed or abandoned: start a new one with start_review',
  RATE_LIMITED: 'the token has used its calls for this window (details.window): wait for the next one, then repeat the call',
  INTERNAL_ERROR: 'a fault on the server: repeat the call once after a short pause',
  SERVICE_UNAVAILABLE: 'the service is briefly unavailable: wait a few seconds, then repeat the call',
};

/** Codes every tool can return, explained once in the server's instructions rather than per tool. */
export const COMMON_CODES: readonly ErrorCode[] = ['RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];

/** Codes that never reach a tool result: authentication happens per HTTP request (401). */
const HTTP_ONLY: readonly ErrorCode[] = ['UNAUTHORIZED', 'TOKEN_REVOKED', 'URI_TOO_LONG', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

/**
 * The "Errors" paragraph of a tool's description: the codes its API route can return. What to do
 * about each is said once, in the server's instructions (adviceParagraph), not in every tool.
 */
export function errorsParagraph(codes: readonly ErrorCode[]): string {
  const listed = codes.filter((c) => !HTTP_ONLY.includes(c) && !COMMON_CODES.includes(c) && ADVICE[c] !== undefined);
  if (listed.length === 0) return '';
  return `\n\nErrors (isError; the text is {"error": {"code", "message", "details"}}): ${listed.join(', ')}.`;
}

/** What to do about each error code a tool can return, for the server's instructions. */
export function adviceParagraph(): string {
  return `What to do about each error code: ${Object.entries(ADVICE).map(([code, advice]) => `${code}: ${advice}`).join('; ')}.`;
}
