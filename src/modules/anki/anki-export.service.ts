// GET /decks/{deckId}/apkg: a deck as an Anki package that Anki opens, with the deck's images.
// The collection (schema 11, collection.anki2) is written with better-sqlite3 to a temporary file
// and zipped with yazl. Each note shows the card's sides as HTML and keeps the card whole, as
// JSON, in a field no template shows, so importing the package here gives the same deck back.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import yazl from 'yazl';
import type { ServiceContext } from '../../context.ts';
import type { CardDto, DeckDetail } from '../decks/decks.schemas.ts';
import { getDeckDetail } from '../decks/decks.service.ts';
import type { Actor } from '../identity/principal.ts';
import { IMAGE_TYPES } from '../media/image-probe.ts';
import { mediaReferencedBy } from '../media/media.service.ts';
import type { MediaBlob } from '../media/media.repository.ts';
import { escapeHtml } from '../rendering/html-escape.ts';
import { htmlText, renderHtmlSide } from '../rendering/html-side.ts';
import { renderMarkdownSide } from '../rendering/markdown-side.ts';
import { DECK_META_MARK } from './anki-notes.ts';
import { COLLECTION_CONF, DECK_CONFIG, SCHEMA_11, ankiDeck, flashdeckNotetype } from './anki-schema.ts';

export interface AnkiPackage {
  readonly fileName: string;
  readonly data: Buffer;
}

/** JSON that can sit in HTML (a comment, a field) without closing anything. */
function inertJson(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c').replaceAll('>', '\\u003e').replaceAll('&', '\\u0026');
}

/** Our `/media/<hash>.<ext>` addresses become the package's file names. */
function localMedia(html: string): string {
  return html.replace(/(["'(])(?:https?:\/\/[^"'()\s]*)?\/media\/([0-9a-f]{64}\.(?:png|jpg|gif|webp))/g, '$1$2');
}

function sideHtml(card: CardDto, side: 'front' | 'back'): string {
  const text = card[side];
  const type = side === 'front' ? card.extras?.frontType : card.extras?.backType;
  let html = '';
  if (text !== null && text !== '') {
    if (type === 'html') html = renderHtmlSide(text);
    else if (type === 'latex') html = `\\[${escapeHtml(text)}\\]`;
    else if (type === 'text') html = escapeHtml(text).replaceAll('\n', '<br>');
    else html = renderMarkdownSide(text);
  }
  const media = side === 'front' ? card.frontMedia : card.backMedia;
  if (media?.imageUrl != null) html += `<div><img src="${escapeHtml(media.imageUrl)}" alt="${escapeHtml(media.imageAlt ?? '')}"></div>`;
  return localMedia(html);
}

/** Anki's note checksum: the first 8 hex digits of the SHA-1 of the first field's text. */
function checksum(field: string): number {
  return Number.parseInt(createHash('sha1').update(htmlText(field)).digest('hex').slice(0, 8), 16);
}

function deckDescription(deck: DeckDetail): string {
  const meta = { title: deck.title, description: deck.description, lang: deck.lang, visibility: deck.visibility, tags: deck.tags, thumbnail: deck.thumbnail };
  return `${escapeHtml(deck.description ?? '')}<!--${DECK_META_MARK}${inertJson(meta)}-->`;
}

function writeCollection(file: string, deck: DeckDetail, now: number): void {
  const db = new BetterSqlite3(file);
  try {
    db.exec(SCHEMA_11);
    const deckId = now;
    const notetypeId = now + 1;
    const seconds = Math.floor(now / 1000);
    const decks = { 1: ankiDeck(1, 'Default', '', seconds), [deckId]: ankiDeck(deckId, deck.title, deckDescription(deck), seconds) };
    db.prepare('insert into col values (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, ?)').run(
      seconds, now, now, JSON.stringify({ ...COLLECTION_CONF, curModel: notetypeId }),
      JSON.stringify({ [notetypeId]: flashdeckNotetype(notetypeId, deckId, seconds) }), JSON.stringify(decks), JSON.stringify(DECK_CONFIG), '{}',
    );
    const insertNote = db.prepare('insert into notes values (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, \'\')');
    const insertCard = db.prepare('insert into cards values (?, ?, ?, 0, ?, -1, 0, 0, ?, 0, 0, 0, 0, 0, 0, 0, 0, \'\')');
    db.transaction(() => {
      deck.cards.forEach((card, i) => {
        const { id: _id, order: _order, ...content } = card;
        const front = sideHtml(card, 'front');
        const tags = (card.extras?.tags ?? []).map((t) => t.trim().replace(/\s+/g, '_')).filter((t) => t !== '');
        const noteId = now + i;
        insertNote.run(noteId, card.id, notetypeId, seconds, tags.length > 0 ? ` ${tags.join(' ')} ` : '',
          [front, sideHtml(card, 'back'), inertJson(content)].join('\x1f'), htmlText(front), checksum(front));
        insertCard.run(noteId, noteId, deckId, seconds, i);
      });
    })();
  } finally {
    db.close();
  }
}

function zip(collection: Buffer, media: readonly MediaBlob[]): Promise<Buffer> {
  const archive = new yazl.ZipFile();
  archive.addBuffer(collection, 'collection.anki2');
  const names: Record<string, string> = {};
  media.forEach((blob, i) => {
    names[i] = `${blob.hash}.${IMAGE_TYPES[blob.contentType]}`;
    // Images are compressed already.
    archive.addBuffer(blob.data, String(i), { compress: false });
  });
  archive.addBuffer(Buffer.from(JSON.stringify(names)), 'media');
  archive.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    archive.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    archive.outputStream.on('error', reject);
    archive.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** The deck as a package, with a file name made of its title. */
export async function exportDeckApkg(ctx: ServiceContext, actor: Actor, input: { deckId: string }): Promise<AnkiPackage> {
  const deck = await getDeckDetail(ctx, actor, input);
  const media = await mediaReferencedBy(ctx, [...deck.cards.map((c) => JSON.stringify(c)), deck.thumbnail ?? '']);
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'flashdeck-export-'));
  try {
    const file = path.join(workDir, 'collection.anki2');
    writeCollection(file, deck, ctx.clock.now().getTime());
    const data = await zip(await fs.readFile(file), media);
    const base = deck.title.replace(/[^\p{L}\p{N} _-]+/gu, '').replace(/\s+/g, ' ').trim().slice(0, 80) || 'deck';
    return { fileName: `${base}.apkg`, data };
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
}
