// The catalog: the one table of error codes, and per code everything any surface says about it.
// Services throw AppError and nothing else; each surface renders them its way (the API's and the
// root's envelope and toAppError: src/surfaces/errors.ts; the pages: src/surfaces/web/errors.ts;
// MCP tool results: src/surfaces/mcp/tool-calls.ts; the CLI's one line on stderr:
// src/cli/flashdeck.ts).

/** Everything said about one error code. */
export interface CatalogEntry {
  /** The HTTP status of every reply with this code. */
  readonly status: number;
  /** What it means, as the OpenAPI document lists it beside each status. */
  readonly description: string;
  /** What a model should do about it (the MCP server's instructions); absent: never said to one. */
  readonly advice?: string;
  /**
   * The error page's wording; `message` absent: the error's own. Without it a page says "Not
   * found" (404), "That did not work" (other 4xx) or "Something went wrong" (5xx).
   */
  readonly page?: { readonly title: string; readonly message?: string };
  /** The editor shows it beside what was typed (a problem the person can fix), not as a page. */
  readonly shownOnForm?: true;
}

const CATALOG = {
  BAD_REQUEST: { status: 400, description: 'Malformed query string, header or empty body', advice: 'an argument is malformed (details.field names it): fix it and call again', shownOnForm: true },
  INVALID_INPUT: { status: 400, description: 'A value given to an account or token action is not valid; details.field names it' },
  PARSE_FAILED: { status: 400, description: 'Markdown body cannot be parsed; details.line names the line', advice: 'the markdown cannot be read (details.line): fix it as the resource flashdeck://guides/deck-markdown describes and call again' },
  SCHEMA_INVALID: { status: 400, description: 'JSON body fails validation; details.field names the offending field path', advice: 'a field breaks a rule (details.field names it, details.errors lists every problem): fix those fields and call again', shownOnForm: true },
  TOO_MANY_CARDS: { status: 400, description: 'More than 250 cards in the body, or the deck would exceed 250 cards', advice: 'a deck holds at most 250 cards: send fewer cards, or split the material into several decks', shownOnForm: true },
  CSV_TOO_MANY_COLUMNS: { status: 400, description: 'A CSV record has more columns than the import reads (100); details.line names it' },
  CSV_UNCLOSED_QUOTE: { status: 400, description: 'A quoted CSV field is never closed; details.line names the line its record starts on' },
  IMAGE_TYPE_MISMATCH: { status: 400, description: "The image's bytes are of another type than its Content-Type says; details.detected names what they are" },
  IMAGE_UNREADABLE: { status: 400, description: "The image's header cannot be read (truncated or corrupt)" },
  ZIP_INVALID: { status: 400, description: 'The package is not a zip file, or the zip is corrupt or truncated' },
  ZIP_UNSAFE_PATH: { status: 400, description: 'A zip entry name is absolute, climbs out with `..`, or has a directory or drive part; details.entry names it' },
  APKG_NO_COLLECTION: { status: 400, description: 'The package holds no Anki collection (collection.anki21b, collection.anki21 or collection.anki2)' },
  APKG_NOT_SQLITE: { status: 400, description: "The package's collection is not an SQLite database (or its zstd frame is corrupt)" },
  APKG_SCHEMA_INVALID: { status: 400, description: "The collection's tables are not Anki 2.1's (a table missing or of another shape, a view or virtual table in its place, a generated column); details.table names it" },
  APKG_TOO_SLOW: { status: 400, description: 'Reading the package took longer than the import allows (an SQLite file crafted to be slow); nothing was imported' },
  APKG_DECK_NOT_FOUND: { status: 400, description: 'No Anki deck in the package has the name or id given in `deck`' },
  APKG_EMPTY: { status: 400, description: 'The package (or the Anki deck chosen) has no note that makes a card' },
  INVALID_CREDENTIALS: { status: 400, description: 'Sign-in refused: the email or password is not right (one message for both)' },
  UNAUTHORIZED: { status: 401, description: 'Missing or invalid Authorization header or token' },
  TOKEN_REVOKED: { status: 401, description: 'Token revoked or expired' },
  FORBIDDEN: { status: 403, description: 'Token lacks the required scope', advice: 'the token lacks the scope in details.requiredScope: do not retry; tell the user which scope the token needs' },
  DECK_FORBIDDEN: { status: 403, description: 'The deck named in the path belongs to another user', advice: "the deck belongs to another user: do not retry; list_decks shows the user's own decks" },
  CSRF_REJECTED: { status: 403, description: 'A web form was posted without a valid CSRF token for this session', page: { title: 'This form has expired', message: 'The form was not sent from this site, or your session changed since it was shown. Go back, reload the page and try again.' } },
  SIGNUP_CLOSED: { status: 403, description: 'The operator has closed sign-up (SIGNUP=closed)' },
  MEDIA_QUOTA_EXCEEDED: { status: 403, description: "The user's media would exceed their quota; details.quotaBytes and details.usedBytes say by how much" },
  DECK_LIMIT_REACHED: { status: 403, description: 'The user is at deck capacity', advice: 'the user is at deck capacity (get_capacity): update an existing deck instead (mode "update") or ask the user to make room' },
  NOT_FOUND: { status: 404, description: 'No such route', page: { title: 'Page not found', message: 'There is no page at this address.' } },
  METHOD_NOT_ALLOWED: { status: 405, description: 'The path exists but not with this method; the Allow header lists its methods' },
  REQUEST_TIMEOUT: { status: 408, description: 'The request headers or body did not arrive in time; the connection is closed' },
  DECK_NOT_FOUND: { status: 404, description: 'The deck does not exist or is not owned by the user', advice: 'no deck of this user has that id: check it with list_decks' },
  CARD_NOT_FOUND: { status: 404, description: 'The card does not exist in the deck', advice: 'the card is not in this deck (or not in the session queue): read the deck (get_deck) or the session (get_review) for valid card ids', shownOnForm: true },
  SESSION_NOT_FOUND: { status: 404, description: 'The review session does not exist or is not owned by the user', advice: 'no session of this user has that id: start one with start_review' },
  MEDIA_NOT_FOUND: { status: 404, description: 'No media is stored at this address' },
  USER_NOT_FOUND: { status: 404, description: 'No user has this email address' },
  TOKEN_NOT_FOUND: { status: 404, description: 'No token has this id' },
  IDEMPOTENCY_CONFLICT: { status: 409, description: 'Same Idempotency-Key with a different request', advice: 'this idempotencyKey was used for a different request: use a new key for a new request' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, description: 'A request with this Idempotency-Key is still in progress; retry after Retry-After', advice: 'the first call with this key is still running: wait a second, then repeat the same call with the same key' },
  ANSWER_CONFLICT: { status: 409, description: 'The card was already answered with a different rating', advice: 'the card was already answered in this session with another rating: move on to the next card' },
  SESSION_NOT_ACTIVE: { status: 409, description: 'The review session is completed or abandoned', advice: 'the session is completed or abandoned: start a new one with start_review' },
  USER_EXISTS: { status: 409, description: 'A user with this email address already exists' },
  TOKEN_ALREADY_REVOKED: { status: 409, description: 'The token is already revoked' },
  VERSION_MISMATCH: { status: 412, description: 'If-Match names a version that is not the current one', advice: 'the deck changed since you read its version: read it again (get_deck), re-apply your change, and pass the new version as ifMatch', shownOnForm: true },
  URI_TOO_LONG: { status: 414, description: 'A path parameter is longer than 500 characters' },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'The body exceeds the operator limit', page: { title: 'Too much to send', message: 'The form holds more than this server accepts.' } },
  IMAGE_DIMENSIONS_TOO_LARGE: { status: 413, description: 'The image is wider or taller than 16,384 pixels or larger than 40 megapixels (read from its header; it is never decoded)' },
  ZIP_TOO_MANY_ENTRIES: { status: 413, description: 'The package has more zip entries than the import reads (20,000)' },
  ZIP_ENTRY_TOO_LARGE: { status: 413, description: 'A zip entry unpacks to more than the import allows for it; details.entry names it' },
  ZIP_TOO_LARGE: { status: 413, description: 'The zip entries together unpack to more than the import allows (1 GiB)' },
  ZIP_RATIO_TOO_HIGH: { status: 413, description: 'A zip entry is compressed more than 200 to 1 (a zip bomb); details.entry names it' },
  HEADERS_TOO_LARGE: { status: 431, description: 'The request headers are larger than this server accepts (16 KiB)' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'Content-Type not accepted by this route' },
  IMAGE_TYPE_UNSUPPORTED: { status: 415, description: 'The bytes are not a PNG, JPEG, GIF or WebP image; details.detected names what they are when known' },
  IMAGE_SVG_REFUSED: { status: 415, description: 'SVG images are refused: they can carry script and load other resources' },
  RATE_LIMITED: { status: 429, description: 'Rate limit exceeded; Retry-After gives the seconds until the bucket resets', advice: 'the token has used its calls for this window (details.window): wait for the next one, then repeat the call', page: { title: 'Too many requests' } },
  INTERNAL_ERROR: { status: 500, description: 'Server fault; retry once after a short backoff', advice: 'a fault on the server: repeat the call once after a short pause' },
  SERVICE_UNAVAILABLE: { status: 503, description: 'A backing service is unavailable; retry after Retry-After', advice: 'the service is briefly unavailable: wait a few seconds, then repeat the call', page: { title: 'Temporarily unavailable', message: 'Flashdeck is busy or cannot reach its storage just now. Try again in a few seconds.' } },
} as const satisfies Record<string, CatalogEntry>;

export type ErrorCode = keyof typeof CATALOG;

export const ERROR_CATALOG: Readonly<Record<ErrorCode, CatalogEntry>> = CATALOG;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, details?: unknown, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.details = details;
    this.headers = headers;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

export interface ErrorEnvelope {
  error: { code: string; message: string; requestId?: string; details?: unknown };
}

/**
 * The API's error envelope. `requestId` is the call's X-Request-Id (DECISIONS "Beyond the spec's
 * operations"): every error a request answers carries it; only an error answered before there is a
 * request (a malformed request line on the raw socket) and the CLI's have none.
 */
export function envelope(code: ErrorCode, message: string, details?: unknown, requestId?: string): ErrorEnvelope {
  const error: ErrorEnvelope['error'] = { code, message };
  if (requestId !== undefined) error.requestId = requestId;
  if (details !== undefined) error.details = details;
  return { error };
}
