import { Type } from 'typebox';
import { contentDisposition, principalOf, type RouteModule } from '../../http.ts';
import { AUTH_ERRORS, BODY_ERRORS, IdempotencyKeyHeader, PATH_ERRORS, errorResponses } from '../route-schemas.ts';
import { ImportResultSchema, WarningSchema } from '../../../modules/decks/decks.schemas.ts';
import { exportDeckApkg } from '../../../modules/anki/anki-export.service.ts';
import { importAnkiPackage, type AnkiImportResult } from '../../../modules/anki/anki-import.service.ts';
import { PathId } from '../../../schemas/common.ts';

export const APKG_MEDIA_TYPES = ['application/octet-stream', 'application/zip', 'application/apkg'] as const;

const PackageBytes = Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The .apkg or .colpkg file' });

export const AnkiImportResultSchema = Type.Object({
  decks: Type.Array(ImportResultSchema, { description: 'One per Anki deck with cards (an Anki deck of more than 250 cards becomes several)' }),
  warnings: Type.Array(WarningSchema, { description: 'About the package as a whole (DECK_SPLIT); warnings about cards are in each deck' }),
  idempotencyKey: Type.Optional(Type.String()),
}, { additionalProperties: false });

const DECK_ERRORS = [...AUTH_ERRORS, ...PATH_ERRORS, 'FORBIDDEN', 'DECK_FORBIDDEN', 'DECK_NOT_FOUND'] as const;

export const ankiRoutes: RouteModule = (app, { ctx, idempotent }) => {
  app.get('/decks/:deckId/apkg', {
    config: { auth: { scope: 'decks:read' } },
    schema: {
      operationId: 'exportDeckApkg',
      tags: ['decks'],
      summary: 'Export a deck as an Anki package (extension)',
      description: "An `.apkg` that Anki (2.1 and later, AnkiDroid, AnkiMobile) opens: one Anki deck of the deck's title, a note per card showing its sides as HTML, the card's tags, and the deck's images from the media store. Each note also keeps the card whole in a field no template shows, so importing the package here (POST /decks/import/apkg) gives the same deck back.",
      params: Type.Object({ deckId: PathId() }),
      response: {
        200: { description: 'The Anki package', content: { 'application/apkg': { schema: PackageBytes } } },
        ...errorResponses(DECK_ERRORS),
      },
    },
  }, async (request, reply) => {
    const pkg = await exportDeckApkg(ctx, principalOf(request), { deckId: request.params.deckId });
    return reply.type('application/apkg')
      .header('Content-Disposition', contentDisposition(pkg.fileName))
      .header('Cache-Control', 'private, no-cache')
      .send(pkg.data);
  });

  app.post('/decks/import/apkg', {
    config: { auth: { scope: 'decks:write' }, idempotency: 'import-apkg', accepts: APKG_MEDIA_TYPES },
    bodyLimit: ctx.media.apkgLimitBytes,
    schema: {
      operationId: 'importAnkiPackage',
      tags: ['decks'],
      summary: 'Import an Anki package (.apkg or .colpkg): one deck per Anki deck (extension)',
      description: [
        'The body is the package file as it is (`application/octet-stream`, `application/zip` or `application/apkg`); Anki 2.1 collections `collection.anki2`, `collection.anki21` and zstd `collection.anki21b`. `deck` picks one Anki deck by name or id (400 APKG_DECK_NOT_FOUND when none matches).',
        "Notes become cards: the first field the front, the second the back, the others `extras.info`; a cloze note one card per cloze number with that deletion shown as `[...]` (or its hint); HTML through the `html` content type's sanitiser; a field's first image becomes that side's image in the media store (counted against the media quota). Audio, further images, image occlusion and what cannot map are warnings. An Anki deck of more than 250 cards becomes several decks (warning DECK_SPLIT).",
        'Everything is bounded before it is unpacked (ZIP_TOO_MANY_ENTRIES, ZIP_ENTRY_TOO_LARGE, ZIP_TOO_LARGE, ZIP_RATIO_TOO_HIGH, ZIP_UNSAFE_PATH; a corrupt zip ZIP_INVALID); the collection must be Anki\'s SQLite (APKG_NOT_SQLITE, APKG_SCHEMA_INVALID) and is read within a time bound (APKG_TOO_SLOW). All decks and images are written in one transaction, or nothing is. See docs/media-and-formats.md.',
      ].join('\n\n'),
      querystring: Type.Object({
        deck: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'One Anki deck, by its full name (`Parent::Child`) or its id' })),
      }),
      headers: Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader) }),
      body: { content: Object.fromEntries(APKG_MEDIA_TYPES.map((t) => [t, { schema: PackageBytes }])) },
      response: {
        201: AnkiImportResultSchema,
        ...errorResponses([
          ...AUTH_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'SCHEMA_INVALID', 'TOO_MANY_CARDS', 'DECK_LIMIT_REACHED', 'MEDIA_QUOTA_EXCEEDED',
          'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_IN_USE',
          'ZIP_INVALID', 'ZIP_UNSAFE_PATH', 'ZIP_TOO_MANY_ENTRIES', 'ZIP_ENTRY_TOO_LARGE', 'ZIP_TOO_LARGE', 'ZIP_RATIO_TOO_HIGH',
          'APKG_NO_COLLECTION', 'APKG_NOT_SQLITE', 'APKG_SCHEMA_INVALID', 'APKG_TOO_SLOW', 'APKG_DECK_NOT_FOUND', 'APKG_EMPTY',
        ]),
      },
    },
  }, async (request, reply) => {
    const input = { data: request.body as Buffer, deck: request.query.deck };
    // The import lets go of the package once it is on disk (AnkiImportRequest); so does the request.
    request.body = undefined;
    return idempotent(request, reply, async (beforeCommit) => {
      const result = await importAnkiPackage(ctx, principalOf(request), input, beforeCommit);
      request.activityDeckId = result.decks.at(0)?.deckId ?? null;
      return result;
    }, (_result: AnkiImportResult) => 201);
  });
};
