// An import's warnings on the page that follows it (post/redirect/get): carried in the redirect's
// query as codes and card numbers only (`w=0.LANG_DEFAULTED`, `w=1.FRONT_SECTION_MISSING.3.2,7,9`:
// deck index, code, how many, the first card numbers), never as text, so a link made by someone
// else can show nothing but these sentences. Grouped by code per deck, at most 20 numbers each.
import type { ImportWarning } from '../../../modules/decks/decks.schemas.ts';

const LISTED = 20;

/** What each code means, in the words of the pages. */
const WORDING: Record<string, string> = {
  LANG_DEFAULTED: 'No language was given, so the deck’s language is English (en). Change it under Language in the editor.',
  TITLE_DEFAULTED: 'No title was given, so the deck is called “Imported deck”.',
  FRONT_SECTION_MISSING: 'A card has no front; only its back is shown.',
  TEMPLATE_DEPRECATED: 'A card names an old template; it was read as a card type.',
  CONTENT_TYPE_MISMATCH_TEXT_LOOKS_RICH: 'A side is plain text but looks like markdown or math; choose markdown or latex as its content type in the editor.',
  CARD_TYPE_FORMULA_FRONT_NOT_MATH: 'A formula card does not show a formula on its front.',
  CSV_COLUMNS_IGNORED: 'Some columns were not read: only front, back, tags, frontType and backType are.',
  DECK_SPLIT: 'An Anki deck had more than 250 cards, so it became several decks.',
  FIELD_TRUNCATED: 'A field was longer than a card side holds and was cut.',
  AUDIO_SKIPPED: 'Audio is not supported; the sound was left out.',
  IMAGE_SKIPPED: 'An image could not be imported and was left out.',
  IMAGES_DROPPED: 'A side keeps its first image only; the others were left out.',
  NOTETYPE_UNKNOWN: 'A note has a note type the package does not define; it was read as front and back.',
  NOTE_EMPTY: 'A note had no text on either side (or a cloze note no deletion) and was left out.',
  NOTE_SKIPPED: 'An image occlusion note has no Flashdeck equivalent and was left out.',
  TAGS_TRUNCATED: 'A card had more tags, or longer ones, than a card keeps; they were cut.',
};

interface Group { deck: number; code: string; count: number; cards: number[] }

/** The warnings of an import's decks (and of the package as a whole, as deck 0's) as query values. */
export function warningParams(decks: readonly { warnings?: readonly ImportWarning[] | undefined }[], general: readonly ImportWarning[]): string[] {
  const groups = new Map<string, Group>();
  const add = (deck: number, warning: ImportWarning) => {
    const code = /^[A-Z_]{1,60}$/.test(warning.code) ? warning.code : 'OTHER';
    const key = `${deck}.${code}`;
    const group = groups.get(key) ?? { deck, code, count: 0, cards: [] };
    groups.set(key, group);
    group.count++;
    if (warning.cardIndex !== undefined && group.cards.length < LISTED) group.cards.push(warning.cardIndex + 1);
  };
  for (const warning of general) add(0, warning);
  decks.forEach((deck, i) => { for (const warning of deck.warnings ?? []) add(i, warning); });
  return [...groups.values()].map((g) => `${g.deck}.${g.code}.${g.count}${g.cards.length > 0 ? `.${g.cards.join(',')}` : ''}`);
}

export interface ShownWarning { deck: number; text: string }

/** The query values back as sentences; anything malformed is left out. */
export function shownWarnings(params: readonly string[]): ShownWarning[] {
  const out: ShownWarning[] = [];
  for (const param of params.slice(0, 100)) {
    const m = /^(\d{1,3})\.([A-Z_]{1,60})\.(\d{1,4})(?:\.((?:\d{1,3},){0,19}\d{1,3}))?$/.exec(param);
    if (m === null) continue;
    const count = Number(m[3]);
    const cards = (m.at(4) ?? '').split(',').filter((n) => n !== '');
    const wording = WORDING[m[2]] ?? 'Something in the file could not be imported as it was.';
    const where = cards.length === 0 ? ''
      : ` ${cards.length === 1 && count === 1 ? 'Card' : 'Cards'} ${cards.join(', ')}${count > cards.length ? ` and ${count - cards.length} more` : ''}.`;
    const times = count > 1 && cards.length === 0 ? ` (${count} times)` : '';
    out.push({ deck: Number(m[1]), text: `${wording}${times}${where}` });
  }
  return out;
}
