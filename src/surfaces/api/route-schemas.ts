// The pieces of an API route's schema that describe HTTP: the error responses per status (every
// status a route returns is declared, with exactly its codes), and the request headers the API
// reads. Routes, the OpenAPI document and the MCP tools (derived from the routes) share them.
import { Type, type TSchema } from 'typebox';
import { ERROR_CATALOG, type ErrorCode } from '../../errors.ts';
import { Nullable } from '../../schemas/common.ts';

/** The envelope's `details`: which members are present depends on the code. */
export const ErrorDetailsSchema = Type.Object({
  field: Type.Optional(Type.String({ description: 'Path of the offending field or parameter, e.g. `cards[3].frontMedia.imageUrl` (SCHEMA_INVALID, BAD_REQUEST)' })),
  errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), { description: 'Every validation failure found (SCHEMA_INVALID, BAD_REQUEST)' })),
  line: Type.Optional(Type.Integer({ minimum: 1, description: 'Line of the markdown document (PARSE_FAILED)' })),
  currentVersion: Type.Optional(Nullable(Type.String({ description: "The deck's current version (VERSION_MISMATCH)" }))),
  requiredScope: Type.Optional(Type.String({ description: 'The scope the call needs (FORBIDDEN)' })),
  allowed: Type.Optional(Type.Array(Type.String(), { description: 'Methods the path takes (METHOD_NOT_ALLOWED)' })),
  window: Type.Optional(Type.String({ description: 'The spent window, `minute` or `day` (RATE_LIMITED)' })),
  limit: Type.Optional(Type.Integer({ description: 'The limit that was reached (RATE_LIMITED)' })),
  deckLimit: Type.Optional(Type.Integer({ description: 'The deck limit (DECK_LIMIT_REACHED)' })),
  cardId: Type.Optional(Type.String({ description: 'The card (CARD_NOT_FOUND in a review session)' })),
  status: Type.Optional(Type.String({ description: "The session's status (SESSION_NOT_ACTIVE)" })),
}, { additionalProperties: true, description: 'Present for some codes; other members may be added.' });

/** The call's X-Request-Id, in every error body (DECISIONS "Beyond the spec's operations"). */
export const RequestIdSchema = Type.String({ description: 'The X-Request-Id of the call: quote it when reporting a problem' });

/**
 * The error responses of one route, grouped by status: each status's schema names exactly the
 * codes the route can return with it, so the OpenAPI document lists every status and code.
 */
export function errorResponses(codes: readonly ErrorCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<number, TSchema> = {};
  for (const [status, list] of byStatus) {
    out[status] = Type.Object({
      error: Type.Object({
        code: Type.Enum(list),
        message: Type.String(),
        requestId: RequestIdSchema,
        details: Type.Optional(ErrorDetailsSchema),
      }, { additionalProperties: false }),
    }, {
      additionalProperties: false,
      description: list.map((c) => `\`${c}\`: ${ERROR_CATALOG[c].description}`).join('. '),
    });
  }
  return out;
}

/** Codes every token-authenticated route can return (BAD_REQUEST: the Authorization header sent twice). */
export const AUTH_ERRORS = ['BAD_REQUEST', 'UNAUTHORIZED', 'TOKEN_REVOKED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'] as const satisfies readonly ErrorCode[];
/**
 * Codes of routes with a path parameter: longer than 500 characters, 414; percent-encoding that
 * does not decode to text (`%ED%A0%80`, a lone surrogate), 400.
 */
export const PATH_ERRORS = ['BAD_REQUEST', 'URI_TOO_LONG'] as const satisfies readonly ErrorCode[];

/**
 * Codes of routes that take a body. SCHEMA_INVALID on every one of them: the JSON reader refuses a
 * member named with one backslash before the route sees the body (src/surfaces/json-text.ts).
 */
export const BODY_ERRORS = ['BAD_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'SCHEMA_INVALID'] as const satisfies readonly ErrorCode[];

export const IdempotencyKeyHeader = Type.String({
  minLength: 8,
  maxLength: 128,
  // Printable ASCII, as an HTTP structured-field string (the IETF Idempotency-Key draft): a header
  // arrives as Latin-1, so any other character would be stored and echoed as something else.
  pattern: '^[\\x20-\\x7E]*$',
  description: 'Printable ASCII. Retry with the same key and body returns the stored response (header `Idempotent-Replayed: true`); a different body gives 409 IDEMPOTENCY_CONFLICT; while the first request runs, 409 IDEMPOTENCY_KEY_IN_USE with Retry-After: 1. Keys are scoped to the user and operation and kept 24 hours; only 2xx responses are stored.',
});

export const IfMatchHeader = Type.String({
  description: 'Optional optimistic concurrency: the deck `version` this write expects. A stale version gives 412 VERSION_MISMATCH. Quotes are optional.',
});
