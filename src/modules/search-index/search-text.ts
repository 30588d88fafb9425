// What the full-text index holds and how a query is read, the same on both stores: text is folded
// here (compatibility decomposition, marks removed, lower case) and cut into words of letters and
// digits. PostgreSQL's `simple` configuration reads those words separated by spaces
// (indexedText). SQLite's FTS5 (unicode61) reads each word with its owner's code before it
// (ownWordsText), and, for a public deck, the plain text too: ASCII as it is, which its tokenizer
// cuts into the same words, and folded words otherwise (ftsText). Both stores then agree on every
// word, and nothing in a query is ever syntax: quotes, `NEAR(`, `AND`, `*`, `:` or `&` are
// separators or plain words.
import { createHash } from 'node:crypto';

/** The longest text indexed per document (a card's sides are at most 4000 characters each). */
const MAX_INDEXED_CHARS = 20_000;

const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;
const NOT_WORD = /[^\p{L}\p{N}]+/gu;
const NON_ASCII = /[^\x00-\x7f]/;
// A tag holds no `<`: each `<` is looked at up to the next `<` or `>`, so stripping is linear in
// the side (`<[^>]{0,2000}>` scanned 2000 characters from every `<`: 6.9 s of CPU for an import
// of 250 HTML cards of 4000 `<`).
const TAGS = /<[^<>]{0,2000}>/g;

/** A text cut to the indexed length and folded (ASCII text has nothing to decompose or remove). */
function folded(text: string): string {
  const cut = text.slice(0, MAX_INDEXED_CHARS);
  return (NON_ASCII.test(cut) ? cut.normalize('NFKD').replace(MARKS, '') : cut).toLowerCase();
}

/** The words of a text, folded, in order (repeats kept). */
export function searchWords(text: string): string[] {
  return folded(text).match(WORD) ?? [];
}

/** A document's parts: the texts whose words it holds (empty parts are skipped). */
export type DocumentParts = readonly (string | null | undefined)[];

/**
 * A document's indexed text: its words separated by spaces. The same string as joining
 * searchWords of every part, built by one replace per part instead of an array of words (an
 * import folds 250 cards inside its transaction).
 */
export function indexedText(parts: DocumentParts): string {
  let text = '';
  for (const part of parts) {
    if (!part) continue;
    const words = folded(part).replace(NOT_WORD, ' ').trim();
    if (words !== '') text = text === '' ? words : `${text} ${words}`;
  }
  return text;
}

/**
 * A document's text for FTS5, whose unicode61 tokenizer cuts it into the same words: an ASCII
 * part goes as it is, cut to the indexed length (for ASCII the tokenizer keeps exactly letters
 * and digits and folds case, as searchWords does), and only a part with other characters is
 * folded here. Folding every part cost an import of 250 cards 1 to 2 ms of its 5.
 */
export function ftsText(parts: DocumentParts): string {
  let text = '';
  for (const part of parts) {
    if (!part) continue;
    const cut = part.slice(0, MAX_INDEXED_CHARS);
    const words = NON_ASCII.test(cut) ? indexedText([cut]) : cut;
    text = text === '' ? words : `${text} ${words}`;
  }
  return text;
}

const ASCII_NOT_WORD = /[^a-z0-9]+/;

/** A document's words, folded, in order: searchWords of every part (ASCII parts split without the Unicode classes). */
export function documentWords(parts: DocumentParts): string[] {
  const words: string[] = [];
  for (const part of parts) {
    if (!part) continue;
    const cut = part.slice(0, MAX_INDEXED_CHARS);
    if (NON_ASCII.test(cut)) {
      for (const word of folded(cut).match(WORD) ?? []) words.push(word);
    } else {
      for (const word of cut.toLowerCase().split(ASCII_NOT_WORD)) if (word !== '') words.push(word);
    }
  }
  return words;
}

/**
 * The code that starts each of a user's words in SQLite's index (4 letters or digits from a hash
 * of the user id): each user's words are then terms of their own, so FTS5 reads only that user's
 * postings for a search and weighs words (BM25's IDF) by that user's documents alone, instead of
 * by every user's (a one-word search cost in proportion to the word's frequency in the whole
 * store: docs/performance.md). Two users may share a code; the `owner` column still keeps each
 * search to its user, so sharing only mixes their word weights. Never change it without
 * rebuilding the index (migration 0010 holds a copy).
 */
export function userCode(userId: string): string {
  const n = createHash('sha256').update(userId, 'utf8').digest().readUInt32BE(0) % 36 ** 4;
  return n.toString(36).padStart(4, '0');
}

/** A document's text for the `body` column of SQLite's index: each word with the owner's code before it. */
export function ownWordsText(parts: DocumentParts, code: string): string {
  let text = '';
  for (const word of documentWords(parts)) text = text === '' ? code + word : `${text} ${code}${word}`;
  return text;
}

/** A deck's own document: title, description and tags. */
export function deckDocumentParts(title: string, description: string | null, tags: readonly string[]): DocumentParts {
  return [title, description, ...tags];
}

interface StoredContent {
  front?: string | null;
  back?: string | null;
  extras?: { info?: string | null; frontType?: string; backType?: string };
}

/** A card's document: front, back and extras.info (HTML sides without their tags). */
export function cardDocumentParts(data: string): DocumentParts {
  const card = JSON.parse(data) as StoredContent;
  const side = (value: string | null | undefined, type: string | undefined) => (value && type === 'html' ? value.replace(TAGS, ' ') : value);
  return [side(card.front, card.extras?.frontType), side(card.back, card.extras?.backType), card.extras?.info];
}

/**
 * The words a query asks for (at most 64; a query of no word matches nothing). Every word must be
 * in one document (a deck's own text, or one card's) for it to match.
 */
export function queryWords(q: string): string[] {
  return [...new Set(searchWords(q))].slice(0, 64);
}

/**
 * The token that stands for a user in the SQLite index's `owner` column: letters and digits only
 * (hex), so the tokenizer keeps it whole and ids differing only in case stay apart.
 */
export function ownerToken(userId: string): string {
  return `u${Buffer.from(userId, 'utf8').toString('hex')}`;
}
