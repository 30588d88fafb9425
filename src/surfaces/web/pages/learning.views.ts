// What the learning view's and the editor's templates are given (views/learning/*.eta): plain
// data built from the services' results. Card HTML comes from the one renderer and is the only
// unescaped content in those templates.
import { AppError } from '../../../errors.ts';
import { CARD_TYPES, CONTENT_TYPES, type CardDto, type Visibility } from '../../../modules/decks/decks.schemas.ts';
import { renderCard, sideHtml, type RenderedCard } from '../../../modules/rendering/card-renderer.ts';
import { RATINGS, type ReviewRating, type Session } from '../../../modules/reviews/reviews.schemas.ts';
import type { DeckDueCount } from '../../../modules/learning/study.service.ts';
import { intervalText, intervalWords, shownTime } from '../time-words.ts';
import type { DeckPage, StudyState } from '../../../modules/learning/learning.service.ts';
import { cardInputOf, type FormFields } from '../../../modules/learning/editor.service.ts';
import { deckPath } from './deck-paths.ts';

const VISIBILITY_LABELS: Record<Visibility, string> = { public: 'Public', unlisted: 'Unlisted', private: 'Private' };

/** Whether a page of this deck may be indexed by search engines (only public decks). */
export function indexable(visibility: Visibility): boolean {
  return visibility === 'public';
}

export interface ShownCard {
  chrome: string;
  front: string;
  back: string;
  info: string | null;
}

function shown(card: RenderedCard): ShownCard {
  return { chrome: card.chrome, front: sideHtml(card, 'front'), back: sideHtml(card, 'back'), info: card.info };
}

function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

function base(page: DeckPage) {
  const { deck } = page;
  return {
    title: deck.title,
    lang: deck.lang,
    visibilityLabel: VISIBILITY_LABELS[deck.visibility],
    cardCount: page.rendered.cards.length,
    editUrl: page.isOwner ? `${deckPath(deck.id)}/edit` : null,
    studyUrl: deckPath(deck.id),
    browseUrl: `${deckPath(deck.id)}?browse=1`,
    selfUrl: deckPath(deck.id),
  };
}

/** Flip-through: card `index` (1-based, clamped) with Previous/Next. A one-sided card has no answer to show. */
export function browseView(page: DeckPage, index: number, answerShown: boolean) {
  const cards = page.rendered.cards;
  const view = base(page);
  if (cards.length === 0) return { ...view, state: 'empty' as const };
  const n = Math.min(Math.max(1, Number.isInteger(index) ? index : 1), cards.length);
  const card = cards[n - 1];
  const at = (i: number) => `${view.selfUrl}?${page.isOwner ? 'browse=1&' : ''}card=${i}`;
  return {
    ...view,
    state: 'card' as const,
    card: shown(card),
    oneSided: card.oneSided,
    answerShown: answerShown || card.oneSided,
    showAnswerFields: [...(page.isOwner ? [['browse', '1']] : []), ['card', String(n)], ['answer', '1']],
    progress: { done: n, total: cards.length },
    progressText: `Card ${n} of ${cards.length}`,
    rate: null,
    nav: { previous: n > 1 ? at(n - 1) : null, next: n < cards.length ? at(n + 1) : null },
  };
}

/** What the study view needs besides the session: the time, and what the services said. */
export interface StudyExtras {
  now: Date;
  /** When the shown card would be due after each rating (state `card`). */
  ratingDue?: Record<ReviewRating, string> | undefined;
  /** The deck's cards named by their fronts (state `completed`). */
  cardNames?: ReadonlyMap<string, string> | undefined;
}

const RATING_LABELS: Record<ReviewRating, string> = { again: 'Again', hard: 'Hard', good: 'Good', easy: 'Easy' };

function ratingButtons(ratingDue: Record<ReviewRating, string> | undefined, now: Date) {
  return RATINGS.map((rating, i) => {
    const ms = ratingDue === undefined ? null : Date.parse(ratingDue[rating]) - now.getTime();
    return {
      rating, label: RATING_LABELS[rating], key: String(i + 1),
      interval: ms === null ? null : intervalText(ms),
      words: ms === null ? null : `${RATING_LABELS[rating]}: next review ${intervalWords(ms)}`,
    };
  });
}

/** What comes after a session or instead of one: study what is due, or when the next card is. */
function whatNext(counts: DeckDueCount, now: Date) {
  return {
    dueNow: counts.due + counts.new,
    counts,
    nextDue: counts.nextDueAt === null ? null : shownTime(counts.nextDueAt, now),
  };
}

function completedView(page: DeckPage, session: Session, counts: DeckDueCount, extras: StudyExtras) {
  const stats = session.stats;
  if (stats === null) throw new AppError('INTERNAL_ERROR', 'a completed session without statistics');
  const names = extras.cardNames ?? new Map<string, string>();
  const due = [...stats.nextDue].sort((a, b) => (a.due < b.due ? -1 : a.due > b.due ? 1 : 0)).map((entry) => ({
    label: names.get(entry.cardId) ?? 'A removed card',
    time: shownTime(entry.due, extras.now),
  }));
  return {
    ...base(page),
    state: 'completed' as const,
    stats,
    accuracyText: stats.accuracy === null ? '–' : `${Math.round(stats.accuracy * 100)} %`,
    durationText: formatDuration(stats.durationMs),
    due,
    ...whatNext(counts, extras.now),
  };
}

/** The owner's review: the session's next card with the rating form, its end, or nothing due. */
export function studyView(page: DeckPage, state: StudyState, answerShown: boolean, extras: StudyExtras) {
  const view = base(page);
  if (state.kind === 'completed') return completedView(page, state.session, state.counts, extras);
  if (state.kind === 'nothing-due') return { ...view, state: 'nothing-due' as const, ...whatNext(state.counts, extras.now) };
  const { session, card } = state;
  return {
    ...view,
    state: 'card' as const,
    card: shown(card),
    oneSided: card.oneSided,
    answerShown: answerShown || card.oneSided,
    showAnswerFields: [['answer', '1']],
    progress: { done: session.progress.answered, total: session.progress.total },
    progressText: `Card ${state.position} of ${session.progress.total} · ${session.progress.answered} answered`,
    rate: { action: `${view.selfUrl}/review`, sessionId: session.id, cardId: card.id, buttons: ratingButtons(extras.ratingDue, extras.now) },
    nav: null,
  };
}

const CONTENT_TYPE_OPTIONS = CONTENT_TYPES.map((value) => ({ value, label: value }));
const CARD_TYPE_OPTIONS = [{ value: '', label: '(none)' }, ...CARD_TYPES.map((value) => ({ value, label: value }))];
const VISIBILITY_OPTIONS = (['private', 'unlisted', 'public'] as const).map((value) => ({ value, label: VISIBILITY_LABELS[value] }));

/** A stored card as the editor's form fields. */
export function cardFields(card: CardDto | null): Record<string, string> {
  const extras = card?.extras;
  return {
    front: card?.front ?? '',
    back: card?.back ?? '',
    frontType: extras?.frontType ?? 'markdown',
    backType: extras?.backType ?? 'markdown',
    cardType: extras?.cardType ?? '',
    oneSided: card?.oneSided === true ? 'on' : '',
    subject: extras?.subject ?? '',
    topic: extras?.topic ?? '',
    info: extras?.info ?? '',
    frontImageUrl: card?.frontMedia?.imageUrl ?? '',
    frontImageAlt: card?.frontMedia?.imageAlt ?? '',
    backImageUrl: card?.backMedia?.imageUrl ?? '',
    backImageAlt: card?.backMedia?.imageAlt ?? '',
  };
}

/** The preview of what the form holds, by the one renderer (never saved; nothing is validated but the types). */
export function previewHtml(form: FormFields, id = 'preview'): string {
  const input = cardInputOf(form);
  const frontType = CONTENT_TYPES.find((t) => t === form.frontType) ?? 'markdown';
  const backType = CONTENT_TYPES.find((t) => t === form.backType) ?? 'markdown';
  const card: CardDto = {
    id, order: 0, front: input.front ?? null, back: input.back ?? null, oneSided: input.oneSided ?? false,
    frontMedia: input.frontMedia ?? null, backMedia: input.backMedia ?? null,
    extras: { frontType, backType, subject: input.extras?.subject ?? null, topic: input.extras?.topic ?? null, info: input.extras?.info ?? null },
  };
  return renderedPreview(renderCard(card));
}

export function renderedPreview(card: RenderedCard): string {
  const info = card.info === null ? '' : `<div class="card-content card-info">${card.info}</div>`;
  return `${card.chrome}${sideHtml(card, 'front')}${sideHtml(card, 'back')}${info}`;
}

export interface EditorProblem {
  heading: string;
  message: string;
}

export interface EditorInput {
  page: DeckPage;
  cards: readonly CardDto[];
  /** The card being edited (null: the new-card form). */
  cardId: string | null;
  /** What the person typed, when a save was refused; else the stored values. */
  deckForm?: FormFields;
  cardForm?: FormFields;
  problem?: EditorProblem;
  notice?: string;
  /** The version a repeated save is checked against (the current one after a conflict). */
  version?: string;
  /** The card as now saved, shown beside what was typed after a conflict. */
  saved?: string;
  /** A save of the deck details met a concurrent change: the details as now saved are shown too. */
  deckConflict?: boolean;
}

export function editorView(input: EditorInput) {
  const { page, cards } = input;
  const { deck } = page;
  const editBase = `${deckPath(deck.id)}/edit`;
  const editing = input.cardId === null ? null : cards.find((c) => c.id === input.cardId) ?? null;
  const values = input.cardForm !== undefined ? { ...cardFields(null), ...stringsOf(input.cardForm) } : cardFields(editing);
  const rendered = editing === null ? undefined : page.rendered.cards.find((c) => c.id === editing.id);
  const preview = input.cardForm !== undefined || rendered === undefined ? previewHtml(values) : renderedPreview(rendered);
  const stored = {
    title: deck.title, description: deck.description ?? '', tags: deck.tags.join(', '), visibility: deck.visibility, lang: deck.lang,
  };
  const deckForm = input.deckForm !== undefined ? stringsOf(input.deckForm) : stored;
  return {
    title: deck.title,
    learnUrl: deckPath(deck.id),
    version: input.version ?? deck.updatedAt,
    problem: input.problem ?? null,
    notice: input.notice ?? null,
    deckAction: `${editBase}/deck`,
    deck: deckForm,
    visibilities: VISIBILITY_OPTIONS,
    contentTypes: CONTENT_TYPE_OPTIONS,
    cardTypes: CARD_TYPE_OPTIONS,
    previewUrl: `${editBase}/preview`,
    editUrl: editBase,
    cards: cards.map((card, i) => ({
      number: i + 1,
      summary: summaryOf(card),
      editUrl: `${editBase}?card=${encodeURIComponent(card.id)}`,
      moveAction: `${editBase}/cards/${encodeURIComponent(card.id)}/move`,
      current: card.id === input.cardId,
    })),
    form: {
      cardId: editing?.id ?? null,
      heading: editing === null ? 'New card' : `Card ${editing.order + 1}`,
      submit: editing === null ? 'Add card' : 'Save',
      action: editing === null ? `${editBase}/cards` : `${editBase}/cards/${encodeURIComponent(editing.id)}`,
      values,
      preview,
    },
    saved: input.saved ?? null,
    savedDeck: input.deckConflict === true
      ? { ...stored, visibility: VISIBILITY_LABELS[deck.visibility] }
      : null,
  };
}

function stringsOf(form: FormFields): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(form)) if (typeof value === 'string') out[key] = value;
  return out;
}

/** A card's one-line label in the list: the start of its front (or back), as plain text. */
function summaryOf(card: CardDto): string {
  const source = (card.front ?? card.back ?? '').replace(/\s+/g, ' ').trim();
  return source.length > 60 ? `${source.slice(0, 59)}…` : source || '(image only)';
}
