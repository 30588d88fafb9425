import { Type } from 'typebox';
import { principalOf, type RouteModule } from '../../http.ts';
import { AUTH_ERRORS, BODY_ERRORS, IdempotencyKeyHeader, IfMatchHeader, errorResponses } from '../route-schemas.ts';
import { PathId } from '../../../schemas/common.ts';
import { ImportBodySchema, ImportResultSchema, type ImportBody, type ImportResult } from '../../../modules/decks/decks.schemas.ts';
import { importDeck, type ImportSource } from '../../../modules/deck-import/deck-import.service.ts';
import { mediaType } from '../content-types.ts';

export const IMPORT_MEDIA_TYPES = ['application/json', 'text/markdown', 'text/csv'] as const;

function sourceOf(contentType: string | undefined, body: ImportBody | string, query: { title?: string; lang?: string }): ImportSource {
  if (typeof body !== 'string') return { format: 'json', body };
  if (mediaType(contentType) === 'text/csv') return { format: 'csv', text: body, title: query.title, lang: query.lang };
  return { format: 'markdown', text: body };
}

export const deckImportRoutes: RouteModule = (app, { ctx, idempotent }) => {
  app.post('/decks/import', {
    config: { auth: { scope: 'decks:write' }, idempotency: 'import-deck', accepts: IMPORT_MEDIA_TYPES },
    schema: {
      operationId: 'importDeck',
      tags: ['decks'],
      summary: 'Create a deck, or replace the cards of one, from JSON, deck markdown or CSV',
      description: [
        '`mode=create` (default) creates a deck: 201; at deck capacity 403 DECK_LIMIT_REACHED. Without an Idempotency-Key, repeating it creates another deck.',
        '`mode=update` replaces the card list and metadata of `targetDeckId`: 200. Cards matching an existing card by content keep their id and review history; repeating the same payload changes nothing, not even `version`.',
        'A `targetDeckId` of another user is 404 DECK_NOT_FOUND. Markdown that cannot be parsed is PARSE_FAILED with `details.line`; see docs/deck-markdown.md for the format.',
        '`text/csv` (extension, RFC 4180): one card a row, columns `front`, `back` and optionally `tags` (space-separated), `frontType`, `backType`, named by a header row or taken in that order. CSV carries cards only: `title` and `lang` name a new deck (defaults `Imported deck`, warning TITLE_DEFAULTED, and `en`); an update keeps the deck\'s metadata. A record of more than 100 columns is CSV_TOO_MANY_COLUMNS, a quote never closed CSV_UNCLOSED_QUOTE, other malformed CSV PARSE_FAILED, each with `details.line`. Anki\'s `#separator:` header lines are honoured. See docs/media-and-formats.md.',
      ].join('\n\n'),
      querystring: Type.Object({
        mode: Type.Optional(Type.Enum(['create', 'update'], { default: 'create' })),
        targetDeckId: Type.Optional(PathId('Required when mode=update')),
        title: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'CSV only: the title of the new deck (default `Imported deck`)' })),
        lang: Type.Optional(Type.String({ minLength: 1, maxLength: 35, description: 'CSV only: the language of the new deck (default `en`)' })),
      }),
      headers: Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader), 'if-match': Type.Optional(IfMatchHeader) }),
      body: {
        content: {
          'application/json': { schema: ImportBodySchema },
          'text/markdown': { schema: Type.String({ description: 'A deck markdown document (docs/deck-markdown.md)' }) },
          'text/csv': { schema: Type.String({ description: 'RFC 4180 CSV: front, back, tags, frontType, backType (docs/media-and-formats.md)' }) },
        },
      },
      response: {
        200: ImportResultSchema,
        201: ImportResultSchema,
        ...errorResponses([
          ...AUTH_ERRORS, ...BODY_ERRORS, 'PARSE_FAILED', 'SCHEMA_INVALID', 'TOO_MANY_CARDS', 'FORBIDDEN', 'CSV_TOO_MANY_COLUMNS', 'CSV_UNCLOSED_QUOTE',
          'DECK_LIMIT_REACHED', 'DECK_NOT_FOUND', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_IN_USE', 'VERSION_MISMATCH',
        ]),
      },
    },
  }, async (request, reply) => {
    const body = request.body as ImportBody | string;
    // The deck an update names is the call's deck in the activity log, refused or not.
    request.activityDeckId = request.query.targetDeckId ?? null;
    return idempotent(request, reply, async (beforeCommit) => {
      const result = await importDeck(ctx, principalOf(request), {
        source: sourceOf(request.headers['content-type'], body, request.query),
        mode: request.query.mode ?? 'create',
        targetDeckId: request.query.targetDeckId,
        ifMatch: request.headers['if-match'],
      }, beforeCommit);
      request.activityDeckId = result.deckId;
      return result;
    }, (result: ImportResult) => (result.mode === 'create' ? 201 : 200));
  });
};
