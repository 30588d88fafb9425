// The OpenAPI 3.1 document, generated from the route schemas that validate requests.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { TOKEN_SCOPES } from '../modules/tokens/scopes.ts';

export const API_PREFIX = '/api/v1';
export const DOCUMENT_VERSION = '1.6.0';

const DESCRIPTION = `Programmatic access to a user's flashcard decks for assistants, agent clients, scripts and plugins.

Every call needs \`Authorization: Bearer <token>\` (a personal access token \`svc_pat_<prefix>_<secret>\`) except this document and the interactive docs. Tokens in the query string are never accepted.

**Errors.** Every non-2xx response is \`{"error": {"code", "message", "details?"}}\`; branch on \`code\`. Validation errors name the offending field path in \`details.field\` (e.g. \`cards[3].frontMedia.imageUrl\`).

**Ownership.** A deck in the path that belongs to another user is 403 DECK_FORBIDDEN; a deck named in a query or body (\`targetDeckId\`) is 404 DECK_NOT_FOUND. The scope check comes first: a token without the needed scope gets 403 FORBIDDEN whatever the deck.

**Rate limits.** Per token: 60 requests per UTC minute and 2000 per UTC day (operator-configurable), fixed windows; rejected requests do not count. Every token-authenticated response carries \`RateLimit-Policy\` and \`RateLimit\` (IETF draft) for the window nearest to exhaustion; 429 RATE_LIMITED carries \`Retry-After\`. Failed authentication is throttled per client address.

**Idempotency.** \`Idempotency-Key\` (8 to 128 chars) on append and import: scoped to user and operation, kept 24 hours; the same key and body replays the stored response byte for byte with \`Idempotent-Replayed: true\`; a different body is 409 IDEMPOTENCY_CONFLICT; while the first request runs, 409 IDEMPOTENCY_KEY_IN_USE with \`Retry-After: 1\`. Only 2xx responses are stored.

**Concurrency.** Writes accept \`If-Match: <version>\`; a stale version is 412 VERSION_MISMATCH. Without it, last write wins.

**Limits.** 250 cards per deck; 1 to 250 cards per request; request bodies over the operator's limit (default 16 MiB) get 413 PAYLOAD_TOO_LARGE. \`imageUrl\` accepts https:// URLs and root-relative paths only.`;

export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Flashdeck Integrations API',
        version: DOCUMENT_VERSION,
        description: DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: `${publicUrl}${API_PREFIX}` }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: `Personal access token. Scopes: ${TOKEN_SCOPES.join(', ')}.`,
          },
        },
      },
      security: [{ bearerAuth: [] }],
      tags: [
        { name: 'account', description: 'The calling principal' },
        { name: 'decks', description: 'Decks and import' },
        { name: 'cards', description: 'Cards of a deck' },
        { name: 'reviews', description: 'Review sessions with FSRS scheduling' },
        { name: 'meta', description: 'This document' },
      ],
    },
    hideUntagged: true,
  });
  await app.register(swaggerUi, { routePrefix: `${API_PREFIX}/docs` });
}
