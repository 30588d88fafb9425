// Deck markdown's structure, shared by the parser and the exporter: the exporter checks every
// side against the same patterns the parser recognises, which is what keeps export -> import exact.
import { AppError } from '../../errors.ts';
import { CardExtrasInputSchema } from '../decks/decks.schemas.ts';

export const DECK_MARKDOWN_VERSION = 1;


export const FRONT_MATTER_KEYS = ['version', 'title', 'lang', 'visibility', 'description', 'tags', 'thumbnail'];
export const CARD_META_KEYS = ['front', 'back', 'oneSided', 'frontMedia', 'backMedia', 'extras'];
export const EXTRAS_KEYS = Object.keys(CardExtrasInputSchema.properties);

// Structure is recognised only at column 0 and outside fenced code; the exporter checks every side
// against these same patterns, which is what keeps export -> import exact.
export const BLANK = /^[ \t]*$/;
export const SEPARATOR = /^---[ \t]*$/;
export const SECTION = /^##[ \t]+(front|back)[ \t]*$/i;
export const META_OPEN = /^<!--[ \t]*card[ \t]*$/i;
export const META_CLOSE = /^-->[ \t]*$/;
export const TITLE = /^#(?:[ \t](.*))?$/s; // the title is the rest of the line, trimmed
const FENCE_OPEN = /^ {0,3}(`{3,}(?!`)|~{3,}(?!~))(.*)$/s;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;


export interface Fence { char: string; length: number; line: number }
export interface Entry { value: unknown; line: number }
export interface Section { line: number; lines: string[] }
export interface CardDraft { line: number; metaLine?: number; meta?: Map<string, Entry>; front?: Section; back?: Section }

export function fail(line: number, message: string): never {
  throw new AppError('PARSE_FAILED', `line ${line}: ${message}`, { line });
}

export function fenceOpening(line: string, lineNo: number): Fence | null {
  const m = FENCE_OPEN.exec(line);
  if (!m) return null;
  // CommonMark: a backtick fence's info string cannot hold a backtick (that is inline code).
  if (m[1][0] === '`' && m[2].includes('`')) return null;
  return { char: m[1][0], length: m[1].length, line: lineNo };
}

export function closesFence(fence: Fence, line: string): boolean {
  const m = FENCE_CLOSE.exec(line);
  return m !== null && m[1][0] === fence.char && m[1].length >= fence.length;
}

export function isStructure(line: string): boolean {
  return SEPARATOR.test(line) || META_OPEN.test(line) || SECTION.test(line);
}
