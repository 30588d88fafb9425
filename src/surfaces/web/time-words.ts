// Times as people read them on the pages: relative ("in 3 days", "5 minutes ago") with the exact
// UTC time beside it for a title (shown on hover) and a <time datetime>, and the short intervals
// of the rating buttons ("10m", "1d", "4d"), as Anki writes them.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MONTH = 30 * DAY;
const YEAR = 365 * DAY;

/** `2026-11-30 14:45 UTC`. */
export function exactTime(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

function amount(ms: number): string {
  const steps: [number, string][] = [[YEAR, 'year'], [MONTH, 'month'], [DAY, 'day'], [HOUR, 'hour'], [MINUTE, 'minute']];
  for (const [size, unit] of steps) {
    if (ms >= size) {
      const n = Math.round(ms / size);
      return `${n} ${unit}${n === 1 ? '' : 's'}`;
    }
  }
  return 'less than a minute';
}

/** "in 3 days", "5 minutes ago", "now" (within a minute either way). */
export function relativeTime(iso: string, now: Date): string {
  const ms = Date.parse(iso) - now.getTime();
  if (Math.abs(ms) < MINUTE) return 'now';
  return ms > 0 ? `in ${amount(ms)}` : `${amount(-ms)} ago`;
}

/** A time for a template: `<time datetime="{{iso}}" title="{{exact}}">{{relative}}</time>`. */
export interface ShownTime {
  iso: string;
  exact: string;
  relative: string;
}

export function shownTime(iso: string, now: Date): ShownTime {
  return { iso, exact: exactTime(iso), relative: relativeTime(iso, now) };
}

/** The short interval of a rating button: `<1m`, `10m`, `3h`, `1d`, `4d`, `2.5mo`, `1.2y`. */
export function intervalText(ms: number): string {
  if (ms < MINUTE) return '<1m';
  if (ms < HOUR) return `${Math.round(ms / MINUTE)}m`;
  if (ms < DAY) return `${Math.round(ms / HOUR)}h`;
  if (ms < MONTH) return `${Math.round(ms / DAY)}d`;
  if (ms < YEAR) return `${Math.round((ms / MONTH) * 10) / 10}mo`;
  return `${Math.round((ms / YEAR) * 10) / 10}y`;
}

/** The same interval in words, for screen readers: "in 10 minutes". */
export function intervalWords(ms: number): string {
  return ms < MINUTE ? 'in less than a minute' : `in ${amount(ms)}`;
}
