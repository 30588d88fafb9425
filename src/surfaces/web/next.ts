// Where a person goes after signing in: only a path on this site given in `?next=`; anything else
// (`//evil.example`, `https://evil.example`, `/\evil.example`, `javascript:`) goes to `/`.

const MAX_NEXT = 2000;
// Control characters, backslashes (browsers read `/\host` as `//host`) and whitespace.
const UNSAFE = /[\u0000-\u0020\u007f\\]/u;

export function safeNext(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_NEXT) return '/';
  if (!value.startsWith('/') || value.startsWith('//') || UNSAFE.test(value)) return '/';
  let parsed: URL;
  try {
    parsed = new URL(value, 'http://flashdeck.invalid');
  } catch {
    return '/';
  }
  if (parsed.origin !== 'http://flashdeck.invalid') return '/';
  return `${parsed.pathname}${parsed.search}${parsed.hash}`;
}

/** `/signin?next=<this page>` for a page that needs a signed-in person. */
export function signInUrl(next: string): string {
  const target = safeNext(next);
  return target === '/' ? '/signin' : `/signin?next=${encodeURIComponent(target)}`;
}
