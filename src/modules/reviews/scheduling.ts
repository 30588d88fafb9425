// FSRS through ts-fsrs: one pure step from (schedule, rating, now) to the next schedule.
import { Rating, createEmptyCard, fsrs, generatorParameters, type Card, type Grade } from 'ts-fsrs';
import type { ReviewRating } from './reviews.schemas.ts';

/** A ts-fsrs Card as stored: times as ISO strings. */
export interface CardSchedule {
  due: string;
  stability: number;
  difficulty: number;
  elapsedDays: number;
  scheduledDays: number;
  learningSteps: number;
  reps: number;
  lapses: number;
  state: number;
  lastReview: string | null;
}

// No fuzz: the same answers at the same times give the same due times (tests and support rely on it).
const scheduler = fsrs(generatorParameters({ enable_fuzz: false }));

const GRADES: Record<ReviewRating, Grade> = {
  again: Rating.Again,
  hard: Rating.Hard,
  good: Rating.Good,
  easy: Rating.Easy,
};

function toCard(schedule: CardSchedule | null, now: Date): Card {
  if (schedule === null) return createEmptyCard(now);
  return {
    due: new Date(schedule.due),
    stability: schedule.stability,
    difficulty: schedule.difficulty,
    // Deprecated for ts-fsrs 6; version 5 still keeps it, and stored schedules carry it.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    elapsed_days: schedule.elapsedDays,
    scheduled_days: schedule.scheduledDays,
    learning_steps: schedule.learningSteps,
    reps: schedule.reps,
    lapses: schedule.lapses,
    // Stored as the enum's number.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
    state: schedule.state,
    ...(schedule.lastReview === null ? {} : { last_review: new Date(schedule.lastReview) }),
  };
}

/** The schedule after answering `rating` at `now`; `previous` null means a card never reviewed. */
export function nextSchedule(previous: CardSchedule | null, rating: ReviewRating, now: Date): CardSchedule {
  const { card } = scheduler.next(toCard(previous, now), now, GRADES[rating]);
  return {
    due: card.due.toISOString(),
    stability: card.stability,
    difficulty: card.difficulty,
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    elapsedDays: card.elapsed_days,
    scheduledDays: card.scheduled_days,
    learningSteps: card.learning_steps,
    reps: card.reps,
    lapses: card.lapses,
    state: card.state,
    lastReview: card.last_review ? card.last_review.toISOString() : null,
  };
}

/** The due time each rating would give at `now` (the intervals the rating buttons show). */
export function previewDueTimes(previous: CardSchedule | null, now: Date): Record<ReviewRating, string> {
  return {
    again: nextSchedule(previous, 'again', now).due,
    hard: nextSchedule(previous, 'hard', now).due,
    good: nextSchedule(previous, 'good', now).due,
    easy: nextSchedule(previous, 'easy', now).due,
  };
}
