// Decks as files, for the CLI and the pages' import and export page: a file in, by its kind
// (.apkg/.colpkg, .csv, .md, .json), through the same import services as the API; a deck out as
// an Anki package, CSV or deck markdown. Plain services: no HTTP.
import type { BeforeCommit, ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { assertBody } from '../../validation.ts';
import { importAnkiPackage, type AnkiImportResult } from '../anki/anki-import.service.ts';
import { exportDeckApkg } from '../anki/anki-export.service.ts';
import { findDeck } from '../decks/decks.repository.ts';
import { ImportBodySchema, type ImportResult } from '../decks/decks.schemas.ts';
import { getDeckDetail } from '../decks/decks.service.ts';
import type { Actor } from '../identity/principal.ts';
import { exportDeckCsv } from '../deck-import/deck-csv.ts';
import { importDeck } from '../deck-import/deck-import.service.ts';
import { exportDeckMarkdown } from '../deck-import/deck-markdown.ts';

export type DeckFileKind = 'apkg' | 'csv' | 'markdown' | 'json';

/** The kind of a file by its name's extension; null for any other. */
export function deckFileKind(fileName: string): DeckFileKind | null {
  const ext = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
  if (ext === 'apkg' || ext === 'colpkg') return 'apkg';
  if (ext === 'csv') return 'csv';
  if (ext === 'md' || ext === 'markdown') return 'markdown';
  if (ext === 'json') return 'json';
  return null;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function text(data: Buffer): string {
  try {
    return UTF8.decode(data);
  } catch {
    throw new AppError('BAD_REQUEST', 'The file is not valid UTF-8 text');
  }
}

/** A deck file imported as new decks: one for every kind but an Anki package, which may hold several. */
export async function importDeckFile(
  ctx: ServiceContext, actor: Actor, input: { fileName: string; data: Buffer; deck?: string; title?: string },
  beforeCommit?: BeforeCommit<AnkiImportResult>,
): Promise<AnkiImportResult> {
  const kind = deckFileKind(input.fileName);
  if (kind === null) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'A deck file is .apkg, .colpkg, .csv, .md or .json');
  if (kind === 'apkg') return importAnkiPackage(ctx, actor, { data: input.data, deck: input.deck }, beforeCommit);
  let result: ImportResult;
  if (kind === 'csv') {
    result = await importDeck(ctx, actor, { source: { format: 'csv', text: text(input.data), title: input.title }, mode: 'create' });
  } else if (kind === 'markdown') {
    result = await importDeck(ctx, actor, { source: { format: 'markdown', text: text(input.data) }, mode: 'create' });
  } else {
    let body: unknown;
    try {
      body = JSON.parse(text(input.data));
    } catch {
      throw new AppError('SCHEMA_INVALID', 'The file is not JSON');
    }
    result = await importDeck(ctx, actor, { source: { format: 'json', body: assertBody(ImportBodySchema, body) }, mode: 'create' });
  }
  return { decks: [result], warnings: [] };
}

export type ExportFormat = 'apkg' | 'csv' | 'md';

export interface DeckFile {
  readonly fileName: string;
  readonly contentType: string;
  readonly data: Buffer;
}

/**
 * A deck as a file. `actor` null is the operator (the CLI), who may export any deck; a user only
 * their own (DECK_FORBIDDEN otherwise).
 */
export async function exportDeckFile(ctx: ServiceContext, actor: Actor | null, input: { deckId: string; format: ExportFormat }): Promise<DeckFile> {
  let owner = actor;
  if (owner === null) {
    const deck = await findDeck(ctx.db, input.deckId);
    if (deck === null) throw new AppError('DECK_NOT_FOUND', `No deck has the id ${input.deckId}`);
    owner = { userId: deck.userId };
  }
  if (input.format === 'apkg') {
    const pkg = await exportDeckApkg(ctx, owner, { deckId: input.deckId });
    return { fileName: pkg.fileName, contentType: 'application/apkg', data: pkg.data };
  }
  const deck = await getDeckDetail(ctx, owner, { deckId: input.deckId });
  const base = pkgName(deck.title);
  return input.format === 'csv'
    ? { fileName: `${base}.csv`, contentType: 'text/csv; charset=utf-8', data: Buffer.from(exportDeckCsv(deck)) }
    : { fileName: `${base}.md`, contentType: 'text/markdown; charset=utf-8', data: Buffer.from(exportDeckMarkdown(deck)) };
}

function pkgName(title: string): string {
  return title.replace(/[^\p{L}\p{N} _-]+/gu, '').replace(/\s+/g, ' ').trim().slice(0, 80) || 'deck';
}
