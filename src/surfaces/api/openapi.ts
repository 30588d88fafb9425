// The API's OpenAPI 3.1 document, generated from the route schemas that validate requests, and
// served with the interactive docs. Registered inside the API's scope, so it describes the API's
// routes and nothing of the other surfaces.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from 'typebox';
import { sendJson, type Api } from '../http.ts';
import { PAGE_SECURITY_HEADERS } from '../page-security.ts';
import { AppendBodySchema, AppendCardsResultSchema, CapacitySchema, CardDtoSchema, CardExtrasInputSchema, CardExtrasSchema, CardInputSchema, CardPatchSchema, DeckDetailSchema, DeckListSchema, DeckMetaInputSchema, DeckPatchSchema, DeckSummarySchema, ImportBodySchema, ImportResultSchema, SideMediaSchema, WarningSchema } from '../../modules/decks/decks.schemas.ts';
import { AnswerBodySchema, AnswerResultSchema, SessionSchema, SessionStatsSchema, StartSessionBodySchema } from '../../modules/reviews/reviews.schemas.ts';
import { WhoAmISchema } from '../../modules/tokens/whoami.ts';
import { TrashedDeckSchema, TrashListSchema } from '../../modules/decks/deck-trash.schemas.ts';
import { CardHitSchema, CopiedDeckSchema, PublicDeckListSchema, PublicDeckSchema, PublicDeckSummarySchema, SearchResultsSchema } from '../../modules/decks/deck-search.schemas.ts';
import { ErrorDetailsSchema } from './route-schemas.ts';
import { TOKEN_SCOPES } from '../../modules/identity/scopes.ts';
import { shapeDocument, type NamedSchemas, type OperationFacts } from './openapi-shape.ts';

/** Shapes with a name in components.schemas (generated clients get these type names). */
const NAMED: NamedSchemas = {
  Deck: DeckDetailSchema, DeckSummary: DeckSummarySchema, DeckList: DeckListSchema, DeckPatch: DeckPatchSchema,
  DeckMetaInput: DeckMetaInputSchema, Card: CardDtoSchema, CardInput: CardInputSchema, CardPatch: CardPatchSchema,
  CardExtras: CardExtrasSchema, CardExtrasInput: CardExtrasInputSchema, SideMedia: SideMediaSchema,
  ImportRequest: ImportBodySchema, ImportResult: ImportResultSchema, ImportWarning: WarningSchema,
  AppendCardsRequest: AppendBodySchema, AppendCardsResult: AppendCardsResultSchema, Capacity: CapacitySchema, WhoAmI: WhoAmISchema,
  ReviewSession: SessionSchema, ReviewStats: SessionStatsSchema, StartReviewRequest: StartSessionBodySchema,
  AnswerRequest: AnswerBodySchema, AnswerResult: AnswerResultSchema, ErrorDetails: ErrorDetailsSchema,
  TrashedDeck: TrashedDeckSchema, TrashList: TrashListSchema, CardSearchResult: CardHitSchema, SearchResults: SearchResultsSchema,
  PublicDeckSummary: PublicDeckSummarySchema, PublicDeckList: PublicDeckListSchema, PublicDeck: PublicDeckSchema, CopiedDeck: CopiedDeckSchema,
};

const SCOPE_WORDS: Record<(typeof TOKEN_SCOPES)[number], string> = {
  'decks:read': 'List and read decks',
  'decks:write': 'Create and update decks and cards',
  'reviews:read': 'Read review sessions',
  'reviews:write': 'Start review sessions, record answers, complete them',
  'decks:delete': 'Delete decks into the trash and restore them (personal access tokens only)',
  'public-decks:read': "Read and copy other users' public decks (personal access tokens only)",
};

export const DOCUMENT_VERSION = '1.7.0';

const DESCRIPTION = `Programmatic access to a user's flashcard decks for assistants, agent clients, scripts and plugins.

Every call needs \`Authorization: Bearer <token>\` (a personal access token \`svc_pat_<prefix>_<secret>\`) except this document and the interactive docs. Tokens in the query string are never accepted. An \`Authorization\` or \`Idempotency-Key\` header sent more than once is 400 BAD_REQUEST.

**Errors.** Every non-2xx response is \`{"error": {"code", "message", "requestId", "details?"}}\`; branch on \`code\`. \`requestId\` is the call's \`X-Request-Id\`: quote it when reporting a problem. Validation errors name the offending field path in \`details.field\` (e.g. \`cards[3].frontMedia.imageUrl\`).

**Ownership.** A deck in the path that belongs to another user is 403 DECK_FORBIDDEN; a deck named in a query or body (\`targetDeckId\`) is 404 DECK_NOT_FOUND. The scope check comes first: a token without the needed scope gets 403 FORBIDDEN whatever the deck.

**Rate limits.** Per token: 60 requests per UTC minute and 2000 per UTC day (operator-configurable), fixed windows; rejected requests do not count. Every token-authenticated response carries \`RateLimit-Policy\` and \`RateLimit\` (IETF draft) for the window nearest to exhaustion; 429 RATE_LIMITED carries \`Retry-After\`. Failed authentication is throttled per client address.

**Idempotency.** \`Idempotency-Key\` (8 to 128 chars) on append, import, bulk card patch and starting a review session: scoped to user and operation, kept 24 hours; the same key and body replays the stored response byte for byte with \`Idempotent-Replayed: true\`; a different body is 409 IDEMPOTENCY_CONFLICT; while the first request runs, 409 IDEMPOTENCY_KEY_IN_USE with \`Retry-After: 1\`. Only 2xx responses are stored.

**Concurrency.** Writes accept \`If-Match: <version>\`; a stale version is 412 VERSION_MISMATCH. Without it, last write wins.

**Limits.** 250 cards per deck; 1 to 250 cards per request; request bodies over the operator's limit (default 16 MiB) get 413 PAYLOAD_TOO_LARGE. \`imageUrl\` accepts https:// URLs and root-relative paths (\`/...\`, not \`//...\`) only; plain http:// is 400 SCHEMA_INVALID. At deck capacity, \`mode=create\` is 403 DECK_LIMIT_REACHED (\`deck_limit: null\` means no limit).

**Addresses.** \`{base_url}\` is \`{PUBLIC_URL}/api/v1\`. \`previewUrl\` is \`{PUBLIC_URL}/decks/{deckId}\`, \`editUrl\` \`{PUBLIC_URL}/decks/{deckId}/edit\`. Interactive docs at \`{base_url}/docs\`. Protected-resource metadata (RFC 9728) at \`/.well-known/oauth-protected-resource\`; a 401 carries \`WWW-Authenticate: Bearer resource_metadata="..."\` (plus \`error="invalid_token"\` when a token was presented), a 403 for a missing scope \`error="insufficient_scope", scope="..."\`.

**Browsers.** The API answers CORS requests from any origin (bearer tokens only, never cookies); preflight allows Authorization, Content-Type, Idempotency-Key and If-Match, and the rate-limit, Retry-After and Idempotent-Replayed headers are exposed.

**Identifiers and ordering.** Ids are opaque, random and URL-safe with a readable prefix (\`dck_\`, \`crd_\`, \`tok_\`, \`rev_\`, \`usr_\`). Card \`order\` is the 0-based position. \`GET /decks\` orders by \`updatedAt\` descending, then id; \`nextToken\` is an opaque keyset cursor (a tampered one is 400 BAD_REQUEST).

**Cards.** A card that does not exist in the deck is 404 CARD_NOT_FOUND. \`extras.frontType\` and \`extras.backType\` always come back resolved from the card type. Deck tags are trimmed, empty ones dropped, duplicates (case-insensitive) removed keeping the first spelling. Import warnings: LANG_DEFAULTED, FRONT_SECTION_MISSING, TEMPLATE_DEPRECATED, CONTENT_TYPE_MISMATCH_TEXT_LOOKS_RICH, CARD_TYPE_FORMULA_FRONT_NOT_MATH. \`mode=update\` keeps the id (and review history) of every incoming card matching an existing card by content; repeating the same payload changes nothing, not even \`version\`. \`GET /decks/{deckId}\` with \`Accept: text/markdown\` exports the deck, and importing the export reproduces it.

**Tokens.** Personal access tokens are \`svc_pat_<prefix>_<secret>\` (base62; the secret carries a checksum, so a mistyped token is refused before any lookup); only a keyed hash is stored. Expiry 7, 30, 90 (default) or 365 days. A revoked or expired token is 401 TOKEN_REVOKED; revocation reaches every instance within 5 seconds.

**Activity log.** Every call made with a token is recorded (time, method, route, deck id, status, duration, client address, user agent, request id = the \`X-Request-Id\` response header), kept 90 days; recording never delays or fails a call.

**MCP.** Agent clients can use the same operations through the Model Context Protocol server at \`{PUBLIC_URL}/mcp\` (Streamable HTTP, stateless; same tokens, scopes, rate limits and activity log, route \`mcp:<tool>\`): one tool per operation (\`whoami\`, \`get_capacity\`, \`list_decks\`, \`get_deck\`, \`import_deck\`, \`append_cards\`, \`update_deck\`, \`update_card\`, \`start_review\`, \`get_review\`, \`answer_card\`, \`complete_review\`, \`get_card\`, \`delete_card\`, \`move_card\`, \`update_cards\`, \`list_due\`, \`get_schedule\`, \`list_reviews\`) taking the operation's path, query, header (\`ifMatch\`, \`idempotencyKey\`) and body fields as one object and returning this API's response body as \`structuredContent\` (an error: \`isError\` with the error envelope). Its protected-resource metadata is at \`/.well-known/oauth-protected-resource/mcp\`; a request with a foreign \`Origin\` is refused with 403.

**Review sessions.** \`reviews:write\` starts, answers and completes; \`reviews:read\` reads. Decks not owned by the user are 404 DECK_NOT_FOUND there, other users' sessions 404 SESSION_NOT_FOUND. Scheduling is FSRS, per user and card. Every session response carries \`next\`, the next card to show itself (or null). \`relearn: true\` brings a card rated \`again\` back at the end of the queue, up to 3 times a session. \`GET /reviews/due\`, \`GET /decks/{deckId}/schedule\` and \`GET /reviews\` say what is due, each card's FSRS state and the past sessions.

**Cards, one by one or many at once.** \`GET\` and \`DELETE /decks/{deckId}/cards/{cardId}\` (later cards move up), \`POST .../move {order}\` (orders stay contiguous; past the last card 400 SCHEMA_INVALID), \`PATCH /decks/{deckId}/cards\` (1 to 250 entries, every change or none, one new \`version\`; a card of another deck is 404 CARD_NOT_FOUND naming the entry).`;

/** The deck reads that send ETag (and 304 to If-None-Match): routes/decks.ts, notModified. */
const ETAG_OPERATIONS = new Set(['getDeck', 'exportDeckMarkdown', 'exportDeckCsv']);

/** Collects the API's routes into the document (register before them); serves the docs under `docs`. */
export async function registerOpenApi(api: Api, publicUrl: string, prefix: string): Promise<void> {
  const baseUrl = `${publicUrl}${prefix}`;
  const facts = new Map<string, OperationFacts>();
  api.addHook('onRoute', (route) => {
    const id = (route.schema as { operationId?: unknown } | undefined)?.operationId;
    if (typeof id !== 'string') return;
    const auth = route.config?.auth;
    facts.set(id, { ...(auth ? { scope: auth.scope } : {}), ...(auth?.also ? { also: auth.also } : {}), idempotent: route.config?.idempotency !== undefined, etag: ETAG_OPERATIONS.has(id) });
  });
  await api.register(swagger, {
    transformObject: (documents) => ('openapiObject' in documents
      ? shapeDocument(documents.openapiObject as Record<string, unknown>, NAMED, facts) as never
      : documents.swaggerObject),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Flashdeck Integrations API',
        version: DOCUMENT_VERSION,
        description: DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'Flashdeck operator', url: publicUrl },
      },
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: `Personal access token (\`svc_pat_<prefix>_<secret>\`) or OAuth access token. Scopes: ${TOKEN_SCOPES.join(', ')}.`,
          },
          oauth2: {
            type: 'oauth2',
            description: 'OAuth 2.1 authorization code with PKCE (S256); access tokens are bound to this API as their resource (RFC 8707).',
            flows: {
              authorizationCode: {
                authorizationUrl: `${publicUrl}/oauth/authorize`,
                tokenUrl: `${publicUrl}/oauth/token`,
                refreshUrl: `${publicUrl}/oauth/token`,
                scopes: SCOPE_WORDS,
              },
            },
          },
        },
      },
      security: [{ oauth2: [] }, { bearerAuth: [] }],
      tags: [
        { name: 'account', description: 'The calling principal' },
        { name: 'decks', description: 'Decks and import' },
        { name: 'cards', description: 'Cards of a deck' },
        { name: 'public decks', description: "Every user's public decks: list, read, copy (extension)" },
        { name: 'reviews', description: 'Review sessions with FSRS scheduling' },
        { name: 'meta', description: 'This document' },
      ],
    },
    hideUntagged: true,
  });
  // The docs are an HTML page on the site's origin: the pages' headers (CSP without inline script,
  // frame-ancestors 'none', nosniff) on it and on every file it loads, from a scope of their own.
  await api.register(async (docs) => {
    docs.addHook('onSend', async (_request, reply, payload) => {
      void reply.headers(PAGE_SECURITY_HEADERS);
      return payload;
    });
    // indexPrefix: without it the page at {base_url}/docs (no trailing slash) links its scripts and
    // styles at /docs/static/..., outside the API, and loads blank. BaseLayout: no top bar, whose
    // logo is the one inline <style> the page would need, and whose box loads any other document
    // URL into the page.
    await docs.register(swaggerUi, { routePrefix: '/docs', indexPrefix: api.prefix, uiConfig: { layout: 'BaseLayout' } });
  });
}

/** GET {base_url}/openapi.json: no token, not rate limited, the same for every caller. */
export function openApiRoute(api: Api): void {
  let json: string | undefined;
  api.get('/openapi.json', {
    schema: {
      operationId: 'getOpenApiDocument',
      tags: ['meta'],
      summary: 'This OpenAPI 3.1 document (no token needed, not rate limited)',
      security: [],
      response: { 200: Type.Object({}, { additionalProperties: true, description: 'OpenAPI 3.1.0 document' }) },
    },
  }, async (_request, reply) => {
    // Serialised once, on first use.
    json ??= JSON.stringify(api.swagger());
    return sendJson(reply, json);
  });
}
