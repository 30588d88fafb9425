// The collection inside an exported package (schema 11, collection.anki2), written with
// better-sqlite3. Each side is rendered to HTML by the card renderer, so this module is loaded by
// the first export, not at start: an instance that never exports never holds the renderers.
import { createHash } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import type { CardDto, DeckDetail } from '../decks/decks.schemas.ts';
import { escapeHtml } from '../rendering/html-escape.ts';
import { htmlText, renderHtmlSide } from '../rendering/html-side.ts';
import { renderMarkdownSide } from '../rendering/markdown-side.ts';
import { COLLECTION_CONF, DECK_CONFIG, DECK_META_MARK, SCHEMA_11, ankiDeck, flashdeckNotetype } from './anki-schema.ts';

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

export function writeCollection(file: string, deck: DeckDetail, now: number): void {
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

