// `latex` sides and math inside markdown, through KaTeX with untrusted-input settings.
import katex, { type KatexOptions } from 'katex';
import { escapeHtml } from './html-escape.ts';

/**
 * KaTeX settings for content nobody vetted. `trust: false` renders `\href`, `\url`,
 * `\includegraphics`, `\htmlClass`, `\htmlId`, `\htmlStyle` and `\htmlData` as their inert
 * (red) command names; `strict: 'error'` refuses LaTeX-incompatible input, the `\html*`
 * extensions included, before trust is even asked; `maxExpand` stops macro bombs; `maxSize`
 * caps user-given sizes (`\rule`, `\kern`, ...) at 10em. No `macros` object is passed, so each
 * formula gets a fresh one and `\gdef` cannot leak from one card into the next.
 * Errors are thrown (`throwOnError: true`) and caught by `renderMath`, which renders every
 * failure, KaTeX's own or a stack overflow on deep nesting, the same way: escaped source.
 */
export const KATEX_OPTIONS = Object.freeze({
  trust: false,
  strict: 'error',
  maxExpand: 1000,
  maxSize: 10,
  throwOnError: true,
  output: 'htmlAndMathml',
} satisfies KatexOptions);

/**
 * A formula longer than a card side may be (4000 characters) is shown as its source without
 * asking KaTeX: KaTeX's work grows faster than linearly past a few thousand atoms, so the limit
 * comes before the work it limits.
 */
export const MAX_FORMULA_LENGTH = 4000;

/** A formula whose HTML would be longer than this is shown as its source instead. */
export const MAX_FORMULA_HTML_LENGTH = 200_000;

/**
 * What is still to be given to KaTeX, in cost units: a deck's renderer passes one budget through
 * all its cards, so the KaTeX work one deck can cause is bounded. A formula that does not fit
 * what remains is shown as its source.
 */
export interface MathBudget {
  remaining: number;
  /** How many formulas were shown as source for want of budget. */
  refused: number;
}

// Measured (bench/render.ts): KaTeX spends about 3-15 µs per source character, and 25-45 µs per
// array cell or row (`&`, `\\`), so those count ten times.
const CELL_OR_ROW = /&|\\\\/g;

/** A formula's cost in budget units: one per character, plus ten per `&` and per `\\`. */
export function mathCost(source: string): number {
  return source.length + 10 * (source.match(CELL_OR_ROW)?.length ?? 0);
}

function mathError(source: string, message: string, displayMode: boolean): string {
  const displayClass = displayMode ? ' math-error-display' : '';
  return `<span class="math-error${displayClass}" title="${escapeHtml(message)}">${escapeHtml(source)}</span>`;
}

/**
 * One formula to HTML. Never throws: a formula that is too long, one KaTeX refuses, one nested too
 * deeply for the stack, or one whose output would be too large is rendered as its escaped source,
 * with the reason in a `title`.
 */
export function renderMath(source: string, displayMode: boolean, budget?: MathBudget): string {
  if (source.length > MAX_FORMULA_LENGTH) return mathError(source, 'The formula is too long to display', displayMode);
  if (budget !== undefined) {
    const cost = mathCost(source);
    if (cost > budget.remaining) {
      budget.refused += 1;
      return mathError(source, 'This deck holds more math than is displayed; this formula is shown as written', displayMode);
    }
    budget.remaining -= cost;
  }
  let html: string;
  try {
    html = katex.renderToString(source, { ...KATEX_OPTIONS, displayMode });
  } catch (error) {
    const message = error instanceof katex.ParseError ? error.message : 'The formula is too deeply nested to display';
    return mathError(source, message, displayMode);
  }
  if (html.length > MAX_FORMULA_HTML_LENGTH) return mathError(source, 'The formula is too large to display', displayMode);
  return html;
}

// Authors (and assistants) often wrap an equation-only side in math delimiters anyway.
const DELIMITERS: ReadonlyArray<readonly [string, string]> = [['$$', '$$'], ['\\[', '\\]'], ['\\(', '\\)'], ['$', '$']];

function withoutDelimiters(source: string): string {
  for (const [open, close] of DELIMITERS) {
    if (source.length >= open.length + close.length && source.startsWith(open) && source.endsWith(close)) {
      return source.slice(open.length, source.length - close.length).trim();
    }
  }
  return source;
}

/**
 * `latex`: the whole side is one formula in display mode. One pair of surrounding delimiters
 * (`$$…$$`, `\[…\]`, `\(…\)`, `$…$`) is tolerated and removed.
 */
export function renderLatexSide(source: string, budget?: MathBudget): string {
  const formula = withoutDelimiters(source.trim());
  if (formula === '') return '';
  return `<div class="math-display">${renderMath(formula, true, budget)}</div>`;
}
