// Images: a side's media (frontMedia/backMedia) and images written in markdown share one tag.
import type { SideMedia } from '../decks/decks.schemas.ts';
import { escapeHtml } from './html-escape.ts';
import { safeImageUrl } from './urls.ts';

/**
 * One image tag for a URL that already passed `safeImageUrl`: alt text always present (empty when
 * none was given, which marks the image decorative), lazy-loaded, sent without a referrer.
 */
export function imageTag(src: string, alt: string, title?: string | null): string {
  const titleAttr = title ? ` title="${escapeHtml(title)}"` : '';
  return `<img src="${escapeHtml(src)}" alt="${escapeHtml(alt)}"${titleAttr} loading="lazy" decoding="async" referrerpolicy="no-referrer">`;
}

/**
 * A side's image. The URL is checked again here (https or root-relative only) even though the API
 * validates it on write: stored data may predate a rule. An image whose URL is refused shows its
 * alt text instead; no URL and no alt text render nothing.
 */
export function renderSideMedia(media: SideMedia | undefined): string {
  if (media === null || media === undefined) return '';
  const alt = media.imageAlt ?? '';
  const src = safeImageUrl(media.imageUrl);
  if (src === null) {
    return alt.trim() === '' ? '' : `<p class="card-media card-media-unavailable">${escapeHtml(alt)}</p>`;
  }
  return `<p class="card-media">${imageTag(src, alt)}</p>`;
}
