// Anki notes to Flashdeck cards (docs/media-and-formats.md): the first field is the front, the
// second the back, the rest go to extras.info; a cloze note makes one card per cloze number with
// that deletion shown as `[...]`; HTML goes through the `html` content type's sanitiser; a field's
// first image becomes its side's image; audio and whatever cannot map become warnings. A note of
// the "Flashdeck" notetype (our own export) carries its card whole, so a round trip is exact.
import { htmlText, sanitiseHtmlTakingImages } from '../rendering/html-side.ts';
import type { CardInput, DeckMetaInput, ImportWarning } from '../decks/decks.schemas.ts';
import type { AnkiCollection, AnkiNote, AnkiNotetype } from './anki-collection.ts';
import { DECK_META_MARK } from './anki-schema.ts';

/** The notetype and field our export writes, holding a card's JSON. */
export const FLASHDECK_NOTETYPE = 'Flashdeck';
export const FLASHDECK_FIELD = 'Flashdeck';
/** Our export's deck description ends with the deck's metadata as JSON in this comment. */

const SIDE_CHARS = 4000;
const INFO_CHARS = 1000;
const TAGS = { max: 10, chars: 30 };
/** Characters of a field read at all: any more is dropped before any work on it. */
const FIELD_READ_CHARS = 64 * 1024;

export interface ImageRef {
  readonly url: string;
}

/** Resolves a media file name to its stored image's URL, or says why it cannot be one. */
export type ImageResolver = (name: string) => Promise<ImageRef | { warning: string }>;

interface Side {
  text: string | null;
  imageUrl: string | null;
  imageAlt: string | null;
}

const SOUND = /\[sound:[^\]]*\]/g;

function truncate(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max);
}

/** Clozes as Anki writes them, `{{c1::answer}}` or `{{c1::answer::hint}}`, found in one pass. */
interface Cloze {
  readonly start: number;
  readonly end: number;
  readonly n: number;
  readonly answer: string;
  readonly hint: string | null;
}

function clozesOf(text: string): Cloze[] {
  const out: Cloze[] = [];
  let at = 0;
  for (;;) {
    const start = text.indexOf('{{c', at);
    if (start === -1) break;
    const close = text.indexOf('}}', start);
    if (close === -1) break;
    const match = /^\{\{c(\d{1,3})::/.exec(text.slice(start, Math.min(close, start + 8)));
    if (match === null) {
      at = start + 3;
      continue;
    }
    const inner = text.slice(start + match[0].length, close);
    const split = inner.indexOf('::');
    out.push({
      start, end: close + 2, n: Number(match[1]),
      answer: split === -1 ? inner : inner.slice(0, split),
      hint: split === -1 ? null : inner.slice(split + 2),
    });
    at = close + 2;
  }
  return out;
}

function renderCloze(text: string, clozes: readonly Cloze[], hidden: number | null): string {
  let out = '';
  let at = 0;
  for (const c of clozes) {
    out += text.slice(at, c.start) + (c.n === hidden ? `[${c.hint ?? '...'}]` : c.answer);
    at = c.end;
  }
  return out + text.slice(at);
}

export class NoteMapper {
  readonly #collection: AnkiCollection;
  readonly #resolve: ImageResolver;

  constructor(collection: AnkiCollection, resolve: ImageResolver) {
    this.#collection = collection;
    this.#resolve = resolve;
  }

  /** One field as a card side: sounds dropped, HTML sanitised, its first image resolved. */
  async side(field: string, warn: (code: string, message: string) => void): Promise<Side> {
    let raw = field;
    if (raw.length > FIELD_READ_CHARS) {
      warn('FIELD_TRUNCATED', `A field of ${raw.length} characters was cut to ${FIELD_READ_CHARS} before reading`);
      raw = raw.slice(0, FIELD_READ_CHARS);
    }
    if (raw.includes('[sound:')) {
      warn('AUDIO_SKIPPED', 'Audio is not supported; the sound was left out');
      raw = raw.replace(SOUND, '');
    }
    const { html, images } = sanitiseHtmlTakingImages(raw);
    let text = html.trim();
    if (text.length > SIDE_CHARS) {
      warn('FIELD_TRUNCATED', `A side was cut to ${SIDE_CHARS} characters`);
      text = sanitiseHtmlTakingImages(truncate(text, SIDE_CHARS)).html.slice(0, SIDE_CHARS);
    }
    let imageUrl: string | null = null;
    let imageAlt: string | null = null;
    const first = images.at(0);
    const rest = images.slice(1);
    if (first !== undefined) {
      const resolved = await this.#resolve(first.src);
      if ('url' in resolved) {
        imageUrl = resolved.url;
        imageAlt = first.alt === null ? null : truncate(first.alt, 500);
      } else {
        warn('IMAGE_SKIPPED', `The image ${first.src.slice(0, 200)} was left out: ${resolved.warning}`);
      }
    }
    if (rest.length > 0) warn('IMAGES_DROPPED', `A side keeps its first image only; ${rest.length} more were left out`);
    return { text: text === '' ? null : text, imageUrl, imageAlt };
  }

  /** The cards of one note, with the warnings each one raised. */
  async cards(note: AnkiNote, firstIndex: number): Promise<{ cards: CardInput[]; warnings: ImportWarning[] }> {
    const notetype: AnkiNotetype | undefined = this.#collection.notetypes.get(note.notetypeId);
    const warnings: ImportWarning[] = [];
    const warnAt = (cardIndex: number) => (code: string, message: string) => { warnings.push({ code, message, cardIndex }); };
    if (notetype === undefined) warnAt(firstIndex)('NOTETYPE_UNKNOWN', `Note ${note.id} has a notetype the collection does not define; read as front and back`);
    const own = notetype?.name === FLASHDECK_NOTETYPE ? ownCard(note, notetype) : null;
    if (own !== null) return { cards: [own], warnings };
    const tags = this.tags(note, warnAt(firstIndex));
    if (notetype?.cloze === true) return this.clozeCards(note, notetype, tags, firstIndex, warnings);
    const warn = warnAt(firstIndex);
    const front = await this.side(note.fields[0] ?? '', warn);
    const back = await this.side(note.fields[1] ?? '', warn);
    const info = this.info(note, notetype, 2, warn);
    const card = this.card(front, back, tags, info);
    if (card === null) {
      warn('NOTE_EMPTY', `Note ${note.id} has no text on either side and was left out`);
      return { cards: [], warnings };
    }
    return { cards: [card], warnings };
  }

  private async clozeCards(note: AnkiNote, notetype: AnkiNotetype, tags: string[] | null, firstIndex: number, warnings: ImportWarning[]): Promise<{ cards: CardInput[]; warnings: ImportWarning[] }> {
    const text = truncate(note.fields[0] ?? '', FIELD_READ_CHARS);
    const warn = (code: string, message: string) => { warnings.push({ code, message, cardIndex: firstIndex }); };
    if (text.includes('image-occlusion:')) {
      warn('NOTE_SKIPPED', `Note ${note.id} is an image occlusion, which has no Flashdeck equivalent; it was left out`);
      return { cards: [], warnings };
    }
    const clozes = clozesOf(text);
    const numbers = [...new Set(clozes.map((c) => c.n))].sort((a, b) => a - b);
    const extra = await this.side(note.fields[1] ?? '', warn);
    const revealed = await this.side(renderCloze(text, clozes, null), warn);
    const info = this.info(note, notetype, 2, warn);
    const back: Side = {
      text: [revealed.text, extra.text].filter((t) => t !== null).join('<hr>') || null,
      imageUrl: revealed.imageUrl ?? extra.imageUrl,
      imageAlt: revealed.imageUrl !== null ? revealed.imageAlt : extra.imageAlt,
    };
    const cards: CardInput[] = [];
    for (const n of numbers) {
      const front = await this.side(renderCloze(text, clozes, n), () => {});
      const card = this.card(front, back, tags, info);
      if (card !== null) cards.push(card);
    }
    if (cards.length === 0) warn('NOTE_EMPTY', `Cloze note ${note.id} has no cloze deletion and was left out`);
    return { cards, warnings };
  }

  private tags(note: AnkiNote, warn: (code: string, message: string) => void): string[] | null {
    if (note.tags.length === 0) return null;
    const kept = note.tags.slice(0, TAGS.max).map((t) => truncate(t, TAGS.chars));
    if (note.tags.length > TAGS.max || note.tags.some((t) => t.length > TAGS.chars)) {
      warn('TAGS_TRUNCATED', `A card keeps at most ${TAGS.max} tags of ${TAGS.chars} characters`);
    }
    return [...new Set(kept)];
  }

  /** Fields from `from` on, as `Name: text` paragraphs. */
  private info(note: AnkiNote, notetype: AnkiNotetype | undefined, from: number, warn: (code: string, message: string) => void): string | null {
    const parts: string[] = [];
    for (let i = from; i < note.fields.length; i++) {
      const text = htmlText(truncate(note.fields[i], FIELD_READ_CHARS).replace(SOUND, '')).trim();
      if (text !== '') parts.push(`${notetype?.fields[i] ?? `Field ${i + 1}`}: ${text}`);
    }
    if (parts.length === 0) return null;
    const info = parts.join('\n\n');
    if (info.length > INFO_CHARS) warn('FIELD_TRUNCATED', `The fields after the second were cut to ${INFO_CHARS} characters`);
    return truncate(info, INFO_CHARS);
  }

  private card(front: Side, back: Side, tags: string[] | null, info: string | null): CardInput | null {
    if ((front.text ?? '') === '' && (back.text ?? '') === '') return null;
    const card: CardInput = { front: front.text, back: back.text };
    if (front.imageUrl !== null) card.frontMedia = { imageUrl: front.imageUrl, imageAlt: front.imageAlt };
    if (back.imageUrl !== null) card.backMedia = { imageUrl: back.imageUrl, imageAlt: back.imageAlt };
    const extras: NonNullable<CardInput['extras']> = { frontType: 'html', backType: 'html' };
    if (tags !== null) extras.tags = tags;
    if (info !== null) extras.info = info;
    card.extras = extras;
    return card;
  }
}

/** A card our own export wrote whole into the Flashdeck field (validated later like any input). */
function ownCard(note: AnkiNote, notetype: AnkiNotetype): CardInput | null {
  const at = notetype.fields.indexOf(FLASHDECK_FIELD);
  const json = at === -1 ? undefined : note.fields[at];
  if (json === undefined || json === '') return null;
  try {
    const card: unknown = JSON.parse(htmlUnescape(json));
    return typeof card === 'object' && card !== null && !Array.isArray(card) ? card : null;
  } catch {
    return null;
  }
}

/** Anki may store a field's `<`, `>`, `&` and quotes as entities; the JSON is ours, so only these. */
function htmlUnescape(text: string): string {
  return text.replace(/&(lt|gt|quot|#39|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' } as Record<string, string>)[e] ?? _);
}

/** The deck metadata our export wrote into the Anki deck's description, if it is there. */
export function ownDeckMeta(description: string | null): DeckMetaInput | null {
  if (description === null) return null;
  const at = description.lastIndexOf(`<!--${DECK_META_MARK}`);
  const end = description.lastIndexOf('-->');
  if (at === -1 || end < at) return null;
  try {
    const meta: unknown = JSON.parse(description.slice(at + 4 + DECK_META_MARK.length, end));
    return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? meta as DeckMetaInput : null;
  } catch {
    return null;
  }
}
