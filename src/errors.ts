// One catalog of error codes and their HTTP status. Services throw AppError and nothing else; each
// surface renders them its way (the API's envelope: src/surfaces/api/errors.ts; the CLI's one line
// on stderr: src/cli/flashdeck.ts).

export const ERROR_CATALOG = {
  BAD_REQUEST: { status: 400, description: 'Malformed query string, header or empty body' },
  INVALID_INPUT: { status: 400, description: 'A value given to an account or token action is not valid; details.field names it' },
  PARSE_FAILED: { status: 400, description: 'Markdown body cannot be parsed; details.line names the line' },
  SCHEMA_INVALID: { status: 400, description: 'JSON body fails validation; details.field names the offending field path' },
  TOO_MANY_CARDS: { status: 400, description: 'More than 250 cards in the body, or the deck would exceed 250 cards' },
  INVALID_CREDENTIALS: { status: 400, description: 'Sign-in refused: the email or password is not right (one message for both)' },
  UNAUTHORIZED: { status: 401, description: 'Missing or invalid Authorization header or token' },
  TOKEN_REVOKED: { status: 401, description: 'Token revoked or expired' },
  FORBIDDEN: { status: 403, description: 'Token lacks the required scope' },
  DECK_FORBIDDEN: { status: 403, description: 'The deck named in the path belongs to another user' },
  CSRF_REJECTED: { status: 403, description: 'A web form was posted without a valid CSRF token for this session' },
  SIGNUP_CLOSED: { status: 403, description: 'The operator has closed sign-up (SIGNUP=closed)' },
  DECK_LIMIT_REACHED: { status: 403, description: 'The user is at deck capacity' },
  NOT_FOUND: { status: 404, description: 'No such route' },
  METHOD_NOT_ALLOWED: { status: 405, description: 'The path exists but not with this method; the Allow header lists its methods' },
  REQUEST_TIMEOUT: { status: 408, description: 'The request headers or body did not arrive in time; the connection is closed' },
  DECK_NOT_FOUND: { status: 404, description: 'The deck does not exist or is not owned by the user' },
  CARD_NOT_FOUND: { status: 404, description: 'The card does not exist in the deck' },
  SESSION_NOT_FOUND: { status: 404, description: 'The review session does not exist or is not owned by the user' },
  USER_NOT_FOUND: { status: 404, description: 'No user has this email address' },
  TOKEN_NOT_FOUND: { status: 404, description: 'No token has this id' },
  IDEMPOTENCY_CONFLICT: { status: 409, description: 'Same Idempotency-Key with a different request' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, description: 'A request with this Idempotency-Key is still in progress; retry after Retry-After' },
  ANSWER_CONFLICT: { status: 409, description: 'The card was already answered with a different rating' },
  SESSION_NOT_ACTIVE: { status: 409, description: 'The review session is completed or abandoned' },
  USER_EXISTS: { status: 409, description: 'A user with this email address already exists' },
  TOKEN_ALREADY_REVOKED: { status: 409, description: 'The token is already revoked' },
  VERSION_MISMATCH: { status: 412, description: 'If-Match names a version that is not the current one' },
  URI_TOO_LONG: { status: 414, description: 'A path parameter is longer than 500 characters' },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'The body exceeds the operator limit' },
  HEADERS_TOO_LARGE: { status: 431, description: 'The request headers are larger than this server accepts (16 KiB)' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'Content-Type not accepted by this route' },
  RATE_LIMITED: { status: 429, description: 'Rate limit exceeded; Retry-After gives the seconds until the bucket resets' },
  INTERNAL_ERROR: { status: 500, description: 'Server fault; retry once after a short backoff' },
  SERVICE_UNAVAILABLE: { status: 503, description: 'A backing service is unavailable; retry after Retry-After' },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

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
  error: { code: string; message: string; details?: unknown };
}

export function envelope(code: ErrorCode, message: string, details?: unknown): ErrorEnvelope {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}
