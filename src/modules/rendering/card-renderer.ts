// One renderer for every page: a card (CardDto) to the HTML of its front, back, media, category
// chrome and info. Pure: no I/O, same input, same output.
import type { CardDto, CardExtras, ContentType } from '../decks/decks.schemas.ts';
import { escapeHtml } from './html-escape.ts';
import { renderHtmlSide } from './html-side.ts';
import { renderLatexSide, type MathBudget } from './latex-side.ts';
import { renderMarkdownSide } from './markdown-side.ts';
import { renderSideMedia } from './media.ts';
import { renderTextSide } from './text-side.ts';

/**
 * A side whose HTML would be longer than this is shown as plain text instead (a 4000-character
 * side of table cells or nested fractions can otherwise come to megabytes).
 */
export const MAX_SIDE_HTML_LENGTH = 250_000;

/** The side's content by its content type. Never throws. */
export function renderSide(content: string, type: ContentType, mathBudget?: MathBudget): string {
  const html = renderByType(content, type, mathBudget);
  if (html.length <= MAX_SIDE_HTML_LENGTH) return html;
  return `<div class="render-fallback">${renderTextSide(content)}</div>`;
}

function renderByType(content: string, type: ContentType, mathBudget: MathBudget | undefined): string {
  switch (type) {
    case 'text': return renderTextSide(content);
    case 'markdown': return renderMarkdownSide(content, mathBudget);
    case 'html': return renderHtmlSide(content);
    case 'latex': return renderLatexSide(content, mathBudget);
    default: return renderTextSide(content); // an unknown type never reaches a page unescaped
  }
}

/** The label the back gets: a visually distinct "Answer" heading. */
export function answerLabel(label = 'Answer'): string {
  return `<h2 class="answer-label">${escapeHtml(label)}</h2>`;
}

/**
 * The category line: subject, topic and card type, in that order, those that are set, e.g.
 * "Biology · Cells · definition". Empty when none is set.
 */
export function categoryChrome(extras: Pick<CardExtras, 'subject' | 'topic' | 'cardType'> | undefined): string {
  if (extras === undefined) return '';
  const parts: string[] = [];
  for (const [field, value] of [['subject', extras.subject], ['topic', extras.topic], ['type', extras.cardType]] as const) {
    if (typeof value === 'string' && value.trim() !== '') parts.push(`<span class="card-${field}">${escapeHtml(value.trim())}</span>`);
  }
  if (parts.length === 0) return '';
  return `<p class="card-chrome">${parts.join('<span class="card-chrome-separator" aria-hidden="true"> · </span>')}</p>`;
}

export interface RenderedCard {
  id: string;
  order: number;
  oneSided: boolean;
  frontType: ContentType;
  backType: ContentType;
  /** The front's content; null when the card has no front text and no front image. */
  front: string | null;
  /** The front's image, '' when none. */
  frontMedia: string;
  /** The answer label and the back's content; null when the card has no back text and no back image. */
  back: string | null;
  /** The back's image, '' when none. */
  backMedia: string;
  /** The category line, '' when the card has no subject, topic or card type. */
  chrome: string;
  /** extras.info rendered as markdown (shown in a detail view), null when absent. */
  info: string | null;
}

export interface RenderCardOptions {
  /**
   * Render every side and the info as `text`: cheap and small whatever the content. The deck
   * renderer falls back to it once a deck's rendered size passes its budget.
   */
  textOnly?: boolean;
  /** Shared by all the cards of one deck rendering (see `MathBudget`); none means no deck limit. */
  mathBudget?: MathBudget;
}

function hasText(value: string | null | undefined): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/**
 * A card's front, back (with the answer label), media, category chrome and info. Sides are
 * rendered by `extras.frontType` / `extras.backType` (always resolved on write; `markdown` when a
 * card somehow has none).
 */
export function renderCard(card: CardDto, options: RenderCardOptions = {}): RenderedCard {
  const extras = card.extras;
  const frontType = extras?.frontType ?? 'markdown';
  const backType = extras?.backType ?? 'markdown';
  const typeFor = (type: ContentType): ContentType => (options.textOnly ? 'text' : type);
  const frontMedia = renderSideMedia(card.frontMedia);
  const backMedia = renderSideMedia(card.backMedia);
  const front = hasText(card.front) ? renderSide(card.front, typeFor(frontType), options.mathBudget) : '';
  const back = hasText(card.back) ? renderSide(card.back, typeFor(backType), options.mathBudget) : '';
  return {
    id: card.id,
    order: card.order,
    oneSided: card.oneSided,
    frontType,
    backType,
    front: front === '' && frontMedia === '' ? null : front,
    frontMedia,
    back: back === '' && backMedia === '' ? null : answerLabel() + back,
    backMedia,
    chrome: categoryChrome(extras),
    info: hasText(extras?.info) ? renderSide(extras.info, typeFor('markdown'), options.mathBudget) : null,
  };
}

/**
 * One side as a page shows it: a wrapper naming the side and its content type, the content (with
 * the answer label on the back) and the image. '' when the card has no such side.
 */
export function sideHtml(card: RenderedCard, which: 'front' | 'back'): string {
  const content = which === 'front' ? card.front : card.back;
  if (content === null) return '';
  const type = which === 'front' ? card.frontType : card.backType;
  const media = which === 'front' ? card.frontMedia : card.backMedia;
  return `<div class="card-side card-${which} content-${type}">${content}${media}</div>`;
}

/** Characters held by a rendered card (its HTML is ASCII apart from the card's own text). */
export function renderedCardLength(card: RenderedCard): number {
  return (card.front?.length ?? 0) + card.frontMedia.length + (card.back?.length ?? 0) + card.backMedia.length
    + card.chrome.length + (card.info?.length ?? 0);
}
