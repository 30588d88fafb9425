// Which URLs a rendered card may carry. The browser's own URL parser (WHATWG URL, which Node
// implements) decides what a string means, so the check sees what the browser will see: tabs and
// newlines dropped, `\` read as `/` in http(s) URLs, schemes lower-cased, relative URLs resolved.

/** Stands in for the page a card is shown on: an https page of the service. */
const PAGE_URL = 'https://flashdeck.invalid/decks/card';
const PAGE_ORIGIN = 'https://flashdeck.invalid';
const LINK_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/** The spec's limit on imageUrl; markdown image URLs are held to it too. */
export const MAX_IMAGE_URL_LENGTH = 2048;

/**
 * Links may go to http(s), mailto, or a relative URL (which resolves against the https page, so
 * it is http(s) too). Everything else (javascript:, data:, vbscript:, file:, ...) is refused.
 */
export function isAllowedLinkUrl(href: string): boolean {
  const url = URL.parse(href, PAGE_URL);
  return url !== null && LINK_PROTOCOLS.has(url.protocol);
}

// ASCII controls, space and backslash never appear in an image URL the API accepts; refusing them
// here means no browser normalisation (`/\host`, `/<TAB>/host`) can turn a path into a host.
const UNSAFE_IMAGE_URL_CHARS = /[\u0000-\u0020\u007f\\]/;
const HTTPS_PREFIX = /^https:\/\//i;

/**
 * Images come from `https://` URLs or root-relative paths (`/x`, never `//x` or `/\x`) and nothing
 * else. Returns the URL as the browser will request it (serialised by the URL parser), or null.
 */
export function safeImageUrl(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_IMAGE_URL_LENGTH) return null;
  if (UNSAFE_IMAGE_URL_CHARS.test(raw)) return null;
  if (raw.startsWith('/')) {
    if (raw.startsWith('//')) return null;
    const url = URL.parse(raw, PAGE_URL);
    if (url === null || url.origin !== PAGE_ORIGIN) return null;
    return url.pathname + url.search + url.hash;
  }
  if (!HTTPS_PREFIX.test(raw)) return null;
  const url = URL.parse(raw);
  if (url === null || url.protocol !== 'https:' || url.hostname === '') return null;
  return url.href;
}
