// Deck CSV (RFC 4180): one card a row, columns front, back, and optionally tags (space-separated,
// as Anki writes them), frontType, backType, named by a header row or taken by position. Read by
// csv-records.ts (which says why not csv-parse), with a yield every 64 Ki characters, and bounded
// before the work it bounds: at most MAX_CSV_COLUMNS a record, MAX_CSV_RECORD_CHARS a record, one
// row past the card limit.
import { AppError } from '../../errors.ts';
import { CsvRecordError, csvRecords } from './csv-records.ts';
import { MAX_CARDS_PER_DECK, type CardDto, type CardInput, type ImportWarning } from '../decks/decks.schemas.ts';

export const CSV_COLUMNS = ['front', 'back', 'tags', 'frontType', 'backType'] as const;
type CsvColumn = (typeof CSV_COLUMNS)[number];

/** Columns a record may have; more is CSV_TOO_MANY_COLUMNS. */
export const MAX_CSV_COLUMNS = 100;
/** Characters of one record (its fields together): two 4000-character sides and room to spare. */
export const MAX_CSV_RECORD_CHARS = 64 * 1024;
/** Characters parsed between two yields to the event loop. */
const SLICE_CHARS = 64 * 1024;

export interface ParsedCsv {
  readonly cards: CardInput[];
  readonly warnings: ImportWarning[];
}

const HEADER_NAMES = new Map<string, CsvColumn>(CSV_COLUMNS.map((c) => [c.toLowerCase(), c]));

// Anki's own text export starts with lines such as `#separator:tab` and `#html:true`.
const ANKI_HEADER_LINE = /^#[a-z ]+:[^\n]*\n/i;
const SEPARATORS: Partial<Record<string, string>> = { comma: ',', semicolon: ';', tab: '\t', pipe: '|' };

/** Anki's `#key:value` lines at the top: skipped, `#separator:` honoured. */
function ankiHeader(text: string): { body: string; delimiter: string } {
  let body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let delimiter = ',';
  for (let lines = 0; lines < 20; lines++) {
    const match = ANKI_HEADER_LINE.exec(body);
    if (match === null) break;
    const [key, value] = match[0].slice(1).trim().split(':', 2);
    const named = SEPARATORS[(value as string | undefined ?? '').trim().toLowerCase()];
    if (key.toLowerCase() === 'separator' && named !== undefined) delimiter = named;
    body = body.slice(match[0].length);
  }
  return { body, delimiter };
}

/** All records of the text, or the catalog error that says why not. */
async function records(text: string): Promise<string[][]> {
  const { body, delimiter } = ankiHeader(text);
  try {
    // The header (if any), the cards, and one more row are enough to say there are too many.
    return await csvRecords(body, {
      delimiter, maxColumns: MAX_CSV_COLUMNS, maxRecordChars: MAX_CSV_RECORD_CHARS, maxRecords: MAX_CARDS_PER_DECK + 1, sliceChars: SLICE_CHARS,
    });
  } catch (error) {
    if (!(error instanceof CsvRecordError)) throw error;
    const { line } = error;
    switch (error.kind) {
      case 'too-many-columns':
        throw new AppError('CSV_TOO_MANY_COLUMNS', `line ${line}: a record has more than ${MAX_CSV_COLUMNS} columns`, { line });
      case 'too-many-records':
        throw new AppError('TOO_MANY_CARDS', `line ${line}: more than ${MAX_CARDS_PER_DECK} rows; a deck holds at most ${MAX_CARDS_PER_DECK} cards`, { field: 'cards', line });
      case 'unclosed-quote':
        throw new AppError('CSV_UNCLOSED_QUOTE', `line ${line}: a quoted field of the record starting here is never closed`, { line });
      case 'record-too-long':
        throw new AppError('PARSE_FAILED', `line ${line}: a record is longer than ${MAX_CSV_RECORD_CHARS} characters (an unclosed quote?)`, { line });
      default:
        throw new AppError('PARSE_FAILED', `line ${line}: ${error.message}`, { line });
    }
  }
}

/** The header row's column names, or null when the first row is a card. */
function headerOf(first: readonly string[]): (CsvColumn | null)[] | null {
  const names = first.map((cell) => HEADER_NAMES.get(cell.trim().toLowerCase()) ?? null);
  return names.includes('front') || names.includes('back') ? names : null;
}

/** The cards of a CSV document, in the JSON body's shape (validated by the import as JSON is). */
export async function parseDeckCsv(text: string): Promise<ParsedCsv> {
  const rows = await records(text);
  const warnings: ImportWarning[] = [];
  const header = rows.length > 0 ? headerOf(rows[0]) : null;
  const columns: (CsvColumn | null)[] = header ?? [...CSV_COLUMNS];
  const ignored = header
    ? rows[0].filter((_, i) => header[i] === null)
    : rows.some((r) => r.length > CSV_COLUMNS.length) ? [`${rows.reduce((m, r) => Math.max(m, r.length), 0) - CSV_COLUMNS.length} after the fifth`] : [];
  if (ignored.length > 0) {
    warnings.push({ code: 'CSV_COLUMNS_IGNORED', message: `Columns not read (only ${CSV_COLUMNS.join(', ')} are): ${ignored.join(', ')}` });
  }
  const cards = rows.slice(header ? 1 : 0).map((row) => {
    const card: CardInput = {};
    const extras: Record<string, unknown> = {};
    columns.forEach((column, i) => {
      const cell = row.at(i);
      if (column === null || cell === undefined) return;
      if (column === 'front' || column === 'back') card[column] = cell === '' ? null : cell;
      else if (column === 'tags') {
        const tags = cell.split(/\s+/).filter((t) => t !== '');
        if (tags.length > 0) extras.tags = tags;
      } else if (cell.trim() !== '') extras[column] = cell.trim();
    });
    if (Object.keys(extras).length > 0) card.extras = extras;
    return card;
  });
  return { cards, warnings };
}

/** A field as RFC 4180 writes it: quoted when it holds a comma, quote, CR or LF (or starts with a space). */
function field(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * The deck as CSV with a header row: front, back, tags (spaces inside a tag written as `_`, since
 * the column is space-separated), frontType, backType; CRLF line ends. Importing it gives back
 * those fields of every card; media and other extras are in the JSON, markdown and Anki exports.
 */
export function exportDeckCsv(deck: { cards: readonly CardDto[] }): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const card of deck.cards) {
    const tags = (card.extras?.tags ?? []).map((t) => t.trim().replace(/\s+/g, '_')).join(' ');
    lines.push([card.front ?? '', card.back ?? '', tags, card.extras?.frontType ?? '', card.extras?.backType ?? ''].map(field).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
