// What the learning view's templates are given (views/learning/learn.eta; the editor's are in
// editor.views.ts): plain
// data built from the services' results. Card HTML comes from the one renderer and is the only
// unescaped content in those templates.
import { AppError } from '../../../errors.ts';
import type { Visibility } from '../../../modules/decks/decks.schemas.ts';
import { sideHtml, type RenderedCard } from '../../../modules/rendering/card-renderer.ts';
import { RATINGS, type ReviewRating, type Session } from '../../../modules/reviews/reviews.schemas.ts';
import type { DeckDueCount } from '../../../modules/reviews/review-overview.service.ts';
import { intervalText, intervalWords, shownTime } from '../time-words.ts';
import type { DeckPage, StudyState } from '../../../modules/learning/learning.service.ts';
import { deckPath } from './deck-paths.ts';

export const VISIBILITY_LABELS: Record<Visibility, string> = { public: 'Public', unlisted: 'Unlisted', private: 'Private' };

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
