// Managing decks with no API needed: `New deck` (a title, then the editor), `/decks/import` (paste
// deck markdown, or upload a .md, .json, .csv or .apkg file; its warnings shown on the page the
// import redirects to) and a deck's export (markdown, CSV, .apkg). Thin like the API's routes:
// the same services (importDeck, importDeckFile, exportDeckFile, createDeck's capacity check),
// within the API's byte limits, and every write counted in the person's web bucket (`webWrite`,
// web-writes.ts: the 429 page with Retry-After when spent). docs/web.md, "Managing decks".
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../../../errors.ts';
import { deckFileKind, exportDeckFile, importDeckFile, type ExportFormat } from '../../../modules/deck-files/deck-files.service.ts';
import { importDeck } from '../../../modules/deck-import/deck-import.service.ts';
import { findOwnDeck } from '../../../modules/decks/decks.service.ts';
import { createEmptyDeck } from '../../../modules/decks/new-deck.service.ts';
import { contentDisposition } from '../../http.ts';
import { fieldMessage } from '../field-messages.ts';
import { checkCsrf, field, renderPage, seeOther, SIGNED_IN, WEB_WRITE } from '../render.ts';
import { requireViewer, viewerOf } from '../session.ts';
import { uploadedFile, uploadLimits } from '../uploads.ts';
import type { WebDeps } from '../web.surface.ts';
import { deckPath } from './deck-paths.ts';
import { shownWarnings, warningParams } from './import-warnings.ts';

/** Refusals shown beside the form, with what was typed; anything else is the error page. */
const FIXABLE = new Set([
  'SCHEMA_INVALID', 'PARSE_FAILED', 'TOO_MANY_CARDS', 'DECK_LIMIT_REACHED', 'BAD_REQUEST', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE',
  'CSV_TOO_MANY_COLUMNS', 'CSV_UNCLOSED_QUOTE', 'MEDIA_QUOTA_EXCEEDED', 'ZIP_INVALID', 'ZIP_UNSAFE_PATH', 'ZIP_TOO_MANY_ENTRIES',
  'ZIP_ENTRY_TOO_LARGE', 'ZIP_TOO_LARGE', 'ZIP_RATIO_TOO_HIGH', 'APKG_NO_COLLECTION', 'APKG_NOT_SQLITE', 'APKG_SCHEMA_INVALID',
  'APKG_TOO_SLOW', 'APKG_EMPTY', 'IMAGE_UNREADABLE', 'IMAGE_TYPE_UNSUPPORTED', 'IMAGE_SVG_REFUSED', 'IMAGE_DIMENSIONS_TOO_LARGE',
]);

/** What a person reads for a refused import or new deck. */
export function refusalText(error: AppError): string {
  switch (error.code) {
    case 'DECK_LIMIT_REACHED':
      return `You have as many decks as this server allows (${String((error.details as { deckLimit?: number } | undefined)?.deckLimit ?? '')}). Delete one to make room.`;
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 'Choose a .md, .json, .csv or .apkg file.';
    case 'PAYLOAD_TOO_LARGE':
      return 'The file is larger than this server accepts.';
    case 'MEDIA_QUOTA_EXCEEDED':
      return 'The images would take you over your storage for images.';
    default:
      break;
  }
  const line = (error.details as { line?: unknown } | undefined)?.line;
  const text = fieldMessage(error);
  return typeof line === 'number' && !/\bline \d/i.test(text) ? `${text} (line ${line})` : text;
}

async function tried<T>(work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: AppError }> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (isAppError(error) && FIXABLE.has(error.code)) return { ok: false, error };
    throw error;
  }
}

const EXPORTS = new Map<string, ExportFormat>([['md', 'md'], ['csv', 'csv'], ['apkg', 'apkg']]);

type Params = { deckId: string };

/** A deck file's name without its extension: the title of a CSV deck (CSV carries cards only). */
function stem(fileName: string): string | undefined {
  const base = fileName.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '').trim().slice(0, 200);
  return /\S/.test(base) ? base : undefined;
}

function queryValues(query: unknown, name: string): string[] {
  const value = (query as Record<string, unknown> | null)?.[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function managePages(scope: FastifyInstance, { ctx, config }: WebDeps): void {
  scope.get('/decks/new', SIGNED_IN, async (request, reply) => renderPage(request, reply, 'decks/new', { title: 'New deck', values: { title: '' }, problem: null }));

  scope.post('/decks/new', WEB_WRITE, async (request, reply) => {
    const owner = viewerOf(request);
    const title = field(request.body, 'title');
    const made = await tried(() => createEmptyDeck(ctx, owner, { title }));
    if (!made.ok) return renderPage(request, reply, 'decks/new', { title: 'New deck', values: { title }, problem: refusalText(made.error) }, made.error.status);
    return seeOther(reply, `${deckPath(made.value.id)}/edit?saved=created`);
  });

  const importPage = (request: FastifyRequest, reply: FastifyReply, extra: { markdown?: string; problem?: string | null } = {}, status = 200) =>
    renderPage(request, reply, 'decks/import', {
      title: 'Import decks', markdown: extra.markdown ?? '', problem: extra.problem ?? null,
    }, status);

  scope.get('/decks/import', SIGNED_IN, async (request, reply) => importPage(request, reply));

  /** An empty form is said on the page before the write is admitted (it costs nothing). */
  async function somethingToImport(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if (uploadedFile(request.body, 'file') !== null || field(request.body, 'markdown').trim() !== '') return undefined;
    return importPage(request, reply, { problem: 'Paste a deck in Markdown, or choose a file.' }, 400);
  }

  // One form for both: a pasted document, or a file (an Anki package may be as large as the API's
  // APKG_LIMIT_BYTES; any other file as large as its BODY_LIMIT_BYTES). Sign-in is checked before
  // the body is read, so only a signed-in person's upload is ever buffered.
  const fileSize = Math.max(ctx.media.apkgLimitBytes, config.bodyLimitBytes);
  scope.post('/decks/import', {
    onRequest: requireViewer, preHandler: [requireViewer, checkCsrf, somethingToImport],
    config: { ...uploadLimits({ files: 1, fileSize, fieldSize: config.bodyLimitBytes }), webWrite: true },
  }, async (request, reply) => {
    const owner = viewerOf(request);
    const file = uploadedFile(request.body, 'file');
    const markdown = field(request.body, 'markdown');
    const imported = await tried(async () => {
      if (file === null) {
        const result = await importDeck(ctx, owner, { source: { format: 'markdown', text: markdown.replace(/\r\n?/g, '\n') }, mode: 'create' });
        return { decks: [result], warnings: [] };
      }
      const kind = deckFileKind(file.fileName);
      if (kind !== null && kind !== 'apkg' && file.data.length > config.bodyLimitBytes) throw new AppError('PAYLOAD_TOO_LARGE', 'The file is too large');
      return importDeckFile(ctx, owner, { fileName: file.fileName, data: file.data, title: kind === 'csv' ? stem(file.fileName) : undefined });
    });
    if (!imported.ok) return importPage(request, reply, { markdown, problem: refusalText(imported.error) }, imported.error.status);
    const query = new URLSearchParams();
    for (const deck of imported.value.decks) query.append('deck', deck.deckId);
    for (const w of warningParams(imported.value.decks, imported.value.warnings)) query.append('w', w);
    return seeOther(reply, `/decks/import/done?${query.toString()}`);
  });

  // What an import made: read back from the store (only the person's own decks are shown).
  scope.get('/decks/import/done', SIGNED_IN, async (request, reply) => {
    const owner = viewerOf(request);
    const ids = queryValues(request.query, 'deck').slice(0, 100);
    const decks = [];
    for (const id of ids) {
      const deck = await findOwnDeck(ctx, owner, { deckId: id });
      decks.push(deck !== null
        ? { title: deck.title, cardCount: deck.cardCount, editPath: `${deckPath(deck.id)}/edit`, learnPath: deckPath(deck.id) }
        : null);
    }
    const warnings = shownWarnings(queryValues(request.query, 'w'));
    return renderPage(request, reply, 'decks/imported', {
      title: 'Imported',
      decks: decks.map((deck, i) => deck === null ? null : { ...deck, warnings: warnings.filter((w) => w.deck === i).map((w) => w.text) }),
    });
  });

  // A deck as a file: deck markdown (import(export(deck)) is the same deck), CSV, or an Anki package.
  scope.get<{ Params: Params & { format: string } }>('/decks/:deckId/export/:format', SIGNED_IN, async (request, reply) => {
    const owner = viewerOf(request);
    const format = EXPORTS.get(request.params.format);
    const deck = await findOwnDeck(ctx, owner, { deckId: request.params.deckId });
    // Another person's deck is not found, as on the editor.
    if (deck === null || format === undefined) throw new AppError('DECK_NOT_FOUND', 'No such deck');
    const file = await exportDeckFile(ctx, owner, { deckId: deck.id, format });
    return reply.type(file.contentType).header('Content-Disposition', contentDisposition(file.fileName))
      .header('Cache-Control', 'no-store').header('X-Robots-Tag', 'noindex').send(file.data);
  });
}
