// Where a person goes after signing in: only a path on this site given in `?next=`; anything else
// (`//evil.example`, `https://evil.example`, `/\evil.example`, `/.//evil.example`, `javascript:`)
// goes to `/`.
//
// The decision is made on the URL as the browser will resolve it, not on the raw value: the value
// is parsed as a browser parses a Location (WHATWG URL: tabs and newlines dropped, `\` read as `/`,
// `.` and `..` segments and their `%2e` spellings removed), and what is sent back is that parsed
// URL's path, query and fragment, which must itself resolve to the same URL on this site. A path
// that normalises to `//host` (from `/.//host` or `/..//host`) would be read as another host, so
// it is refused.

const MAX_NEXT = 2000;
/** Any origin stands for this site: only the relative part of the result is kept. */
const SITE = 'http://flashdeck.invalid';

function sameSiteUrl(value: string): URL | null {
  try {
    const url = new URL(value, `${SITE}/`);
    return url.origin === SITE ? url : null;
  } catch {
    return null;
  }
}

export function safeNext(value: unknown): string {
  // Only an absolute path is asked for (`settings`, `?x` and `#x` would resolve against /signin).
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_NEXT || value[0] !== '/') return '/';
  const parsed = sameSiteUrl(value);
  if (parsed === null) return '/';
  const location = `${parsed.pathname}${parsed.search}${parsed.hash}`;
  // `//host` and `/\host` are another host to a browser; the serialised path never holds `\`.
  if (location.startsWith('//')) return '/';
  // What the browser will make of the Location sent is exactly the URL judged here.
  if (sameSiteUrl(location)?.href !== parsed.href) return '/';
  return location;
}

/** `/signin?next=<this page>` for a page that needs a signed-in person. */
export function signInUrl(next: string): string {
  const target = safeNext(next);
  return target === '/' ? '/signin' : `/signin?next=${encodeURIComponent(target)}`;
}
