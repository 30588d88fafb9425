export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * A deck's version is its last-update time and doubles as an optimistic-concurrency token, so two
 * updates must never share one: the next version is at least one millisecond after the previous.
 */
export function nextVersion(clock: Clock, previous: string | null): string {
  const now = clock.now().getTime();
  const prev = previous === null ? 0 : Date.parse(previous);
  return new Date(Math.max(now, prev + 1)).toISOString();
}
