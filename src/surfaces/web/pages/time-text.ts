// A time as the pages show it: relative ("in 30 days", "3 hours ago") with the exact UTC time for
// the title (hover) and the `datetime` attribute.
const UNITS: [number, string][] = [[86_400_000, 'day'], [3_600_000, 'hour'], [60_000, 'minute']];

export interface TimeText {
  /** ISO 8601, for `<time datetime>`. */
  iso: string;
  /** `2026-12-27 14:05 UTC`. */
  exact: string;
  /** `in 30 days`, `2 hours ago`, `just now`. */
  relative: string;
}

export function timeText(iso: string, now: Date): TimeText {
  const diff = Date.parse(iso) - now.getTime();
  const size = Math.abs(diff);
  let relative = 'just now';
  for (const [ms, unit] of UNITS) {
    if (size >= ms) {
      const n = Math.round(size / ms);
      const amount = `${n} ${unit}${n === 1 ? '' : 's'}`;
      relative = diff > 0 ? `in ${amount}` : `${amount} ago`;
      break;
    }
  }
  return { iso, exact: `${iso.slice(0, 16).replace('T', ' ')} UTC`, relative };
}
