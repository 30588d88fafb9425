// What a card is once written: input normalised (retired card types, legacy template), defaults
// resolved (frontType/backType), and the non-fatal problems found on the way as warnings.
import { AppError } from '../../errors.ts';
import {
  RETIRED_CARD_TYPES, TEMPLATE_DATA_LIMITS, TEMPLATES,
  type CardExtras, type CardExtrasInput, type CardInput, type CardPatch, type CardType,
  type ContentType, type ImportWarning, type SideMedia,
} from '../decks/decks.schemas.ts';

/** A card's stored content: everything of CardDto but id and order. */
export interface CardContent {
  front: string | null;
  back: string | null;
  oneSided: boolean;
  frontMedia?: SideMedia;
  backMedia?: SideMedia;
  extras: CardExtras;
}

const EXTRAS_KEYS = [
  'info', 'frontType', 'backType', 'contentType', 'cardType', 'subject', 'topic', 'direction',
  'prompt', 'difficulty', 'tags', 'templateData',
] as const;

function latexSideOf(cardType: CardType | null | undefined, direction: string | null | undefined): 'front' | 'back' | null {
  if (cardType === 'formula') return 'front';
  if (cardType === 'name-formula') return direction === 'formula->name' ? 'front' : 'back';
  return null;
}

function resolveExtras(input: CardExtrasInput | undefined, field: string, index: number | undefined, warnings: ImportWarning[]): CardExtras {
  const source: CardExtrasInput = input ?? {};
  let cardType = source.cardType;
  if (cardType != null && Object.hasOwn(RETIRED_CARD_TYPES, cardType)) {
    cardType = RETIRED_CARD_TYPES[cardType as keyof typeof RETIRED_CARD_TYPES];
  }
  if (source.template != null) {
    warnings.push(withIndex({ code: 'TEMPLATE_DEPRECATED', message: 'extras.template is deprecated; use extras.cardType' }, index));
    if (cardType == null) cardType = TEMPLATES[source.template as keyof typeof TEMPLATES];
  }
  const latexSide = latexSideOf(cardType as CardType | null | undefined, source.direction);
  const fallback = (side: 'front' | 'back'): ContentType => source.contentType ?? (latexSide === side ? 'latex' : 'markdown');
  const resolved: Partial<Record<(typeof EXTRAS_KEYS)[number], unknown>> = {
    cardType,
    frontType: source.frontType ?? fallback('front'),
    backType: source.backType ?? fallback('back'),
    templateData: source.templateData == null ? source.templateData : canonical(source.templateData, `${field}.extras.templateData`),
  };
  // The input's own keys, but those resolved above, in EXTRAS_KEYS order (no merged copy first).
  const out: Record<string, unknown> = {};
  for (const key of EXTRAS_KEYS) {
    const value = Object.hasOwn(resolved, key) ? resolved[key] : Object.hasOwn(source, key) ? (source as Record<string, unknown>)[key] : undefined;
    if (value !== undefined) out[key] = value;
  }
  return out as CardExtras;
}

function withIndex(warning: ImportWarning, index: number | undefined): ImportWarning {
  return index === undefined ? warning : { ...warning, cardIndex: index };
}

// Rich-text markers, checked in time linear in the side's length: the line patterns are tried once
// at each line start (sticky), and no pattern can rescan what it has passed
// (test/modules/cards/linear-work.test.ts). Line patterns: heading | list item | fenced code.
const LINE_MARKER = /#{1,6}(?:[ \t]|$)|[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S|[ \t]{0,3}(?:```|~~~)/my;
const TABLE_SEPARATOR = /[ \t]*(?:\|[ \t]*)?:?-{3}/y; // the line under a table header row
// Within a line: each scan stops at the next character that could start a new match.
const INLINE_MARKERS = [
  /\$[^$\n]+\$/, // dollar-delimited math
  /\*\*[^*\n]+\*\*|__[^_\n]+__/, // bold
  /\[[^[\]\n]+\]\([^()\s]+\)/, // link
];

function startsLine(pattern: RegExp, text: string, at: number): boolean {
  pattern.lastIndex = at;
  return pattern.test(text);
}

function looksRich(text: string): boolean {
  if (INLINE_MARKERS.some((re) => re.test(text))) return true;
  let barAt = text.indexOf('|');
  let afterBar = false; // the previous line holds a "|"
  for (let at = 0; at <= text.length;) {
    if (startsLine(LINE_MARKER, text, at)) return true;
    if (afterBar && startsLine(TABLE_SEPARATOR, text, at)) return true;
    let end = at;
    while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end++;
    afterBar = barAt !== -1 && barAt < end;
    if (barAt !== -1 && barAt < end) barAt = text.indexOf('|', end);
    at = end + (text[end] === '\r' && text[end + 1] === '\n' ? 2 : 1);
  }
  return false;
}

const MATH_MARKERS = /[$\\^_=<>+*/]|\d\s*-\s*\d|\b\d+\b/;

function contentWarnings(content: CardContent, index: number | undefined): ImportWarning[] {
  const warnings: ImportWarning[] = [];
  for (const side of ['front', 'back'] as const) {
    const text = content[side];
    const type = side === 'front' ? content.extras.frontType : content.extras.backType;
    if (type === 'text' && text && looksRich(text)) {
      warnings.push(withIndex({
        code: 'CONTENT_TYPE_MISMATCH_TEXT_LOOKS_RICH',
        message: `The ${side} is typed text but contains markdown or math markers; use markdown (or latex for an equation-only side)`,
      }, index));
    }
  }
  if (content.extras.cardType === 'formula') {
    const front = (content.front ?? '').trim();
    if (front.endsWith('?') || !MATH_MARKERS.test(front)) {
      warnings.push(withIndex({
        code: 'CARD_TYPE_FORMULA_FRONT_NOT_MATH',
        message: 'A formula card should show the formula on the front, not a question or plain words',
      }, index));
    }
  }
  if (content.front === null) {
    if (content.back !== null && content.back.trim() !== '') {
      warnings.push(withIndex({ code: 'FRONT_SECTION_MISSING', message: 'The card has no front; only its back is shown' }, index));
    }
  }
  return warnings;
}

function hasText(value: string | null | undefined): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

function assertNotBlank(content: CardContent, field: string): void {
  if (!hasText(content.front) && !hasText(content.back)) {
    throw new AppError('SCHEMA_INVALID', `${field}: at least one of front or back must be a non-empty string`, {
      field,
      errors: [{ field, message: 'at least one of front or back must be a non-empty string' }],
    });
  }
}

/** "No image" has one form: null-valued keys dropped, an empty object omitted. */
function media(value: SideMedia | undefined): SideMedia | undefined {
  if (value === null || value === undefined) return undefined;
  const out: NonNullable<SideMedia> = {};
  if (value.imageUrl != null) out.imageUrl = value.imageUrl;
  if (value.imageAlt != null) out.imageAlt = value.imageAlt;
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * Object keys sorted at every depth, so equal templateData always serialises to equal bytes.
 * Validation bounds the depth (TEMPLATE_DATA_LIMITS); so does this, for content stored before it did.
 */
function canonical(value: unknown, field: string, depth = 1): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > TEMPLATE_DATA_LIMITS.maxDepth) {
    const message = `must be nested at most ${TEMPLATE_DATA_LIMITS.maxDepth} levels deep`;
    throw new AppError('SCHEMA_INVALID', `${field} ${message}`, { field, errors: [{ field, message }] });
  }
  if (Array.isArray(value)) return value.map((item) => canonical(item, field, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = canonical((value as Record<string, unknown>)[key], field, depth + 1);
  return out;
}

/**
 * Normalises one incoming card. `field` names it in errors (`cards[3]`); `index` goes into warnings.
 */
export function normaliseCard(input: CardInput, field: string, index?: number): { content: CardContent; warnings: ImportWarning[] } {
  const warnings: ImportWarning[] = [];
  const content: CardContent = {
    front: input.front ?? null,
    back: input.back ?? null,
    oneSided: input.oneSided ?? false,
    extras: resolveExtras(input.extras, field, index, warnings),
  };
  const frontMedia = media(input.frontMedia);
  const backMedia = media(input.backMedia);
  if (frontMedia !== undefined) content.frontMedia = frontMedia;
  if (backMedia !== undefined) content.backMedia = backMedia;
  assertNotBlank(content, field);
  warnings.push(...contentWarnings(content, index));
  return { content: orderedContent(content), warnings };
}

/** Applies a CardPatch to stored content; the result is validated as a whole card again. */
export function patchCard(current: CardContent, patch: CardPatch, field = 'body'): CardContent {
  const extrasInput: CardExtrasInput = patch.extras !== undefined
    ? patch.extras
    : current.extras;
  const merged: CardInput = {
    front: patch.front !== undefined ? patch.front : current.front,
    back: patch.back !== undefined ? patch.back : current.back,
    oneSided: patch.oneSided ?? current.oneSided,
    frontMedia: patch.frontMedia !== undefined ? patch.frontMedia : current.frontMedia,
    backMedia: patch.backMedia !== undefined ? patch.backMedia : current.backMedia,
    extras: extrasInput,
  };
  return normaliseCard(merged, field).content;
}

/** Fixed key order, so equal content always serialises to equal bytes. */
function orderedContent(c: CardContent): CardContent {
  const out: CardContent = { front: c.front, back: c.back, oneSided: c.oneSided } as CardContent;
  if (c.frontMedia !== undefined) out.frontMedia = c.frontMedia;
  if (c.backMedia !== undefined) out.backMedia = c.backMedia;
  out.extras = c.extras;
  return out;
}

export function serialiseContent(content: CardContent): string {
  return JSON.stringify(content);
}
