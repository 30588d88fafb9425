import type { DeckFields } from './decks.repository.ts';
import type { DeckMetaInput, ImportWarning } from './decks.schemas.ts';

/** Trimmed, empty ones dropped, duplicates (case-insensitive) removed keeping the first spelling. */
export function normaliseTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags) {
    const tag = raw.trim();
    const key = tag.toLowerCase();
    if (tag === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
  }
  return out;
}

/** An import's deck metadata with defaults applied: the whole updatable state of a deck. */
export function deckFieldsFromMeta(meta: DeckMetaInput, warnings: ImportWarning[]): DeckFields {
  if (meta.lang === undefined) {
    warnings.push({ code: 'LANG_DEFAULTED', message: 'No lang was given; the deck language defaults to en' });
  }
  return {
    title: meta.title,
    description: meta.description ?? null,
    lang: meta.lang ?? 'en',
    visibility: meta.visibility ?? 'private',
    tags: normaliseTags(meta.tags ?? []),
    thumbnail: meta.thumbnail ?? null,
  };
}

export function sameDeckFields(a: DeckFields, b: DeckFields): boolean {
  return a.title === b.title && a.description === b.description && a.lang === b.lang
    && a.visibility === b.visibility && a.thumbnail === b.thumbnail
    && a.tags.length === b.tags.length && a.tags.every((t, i) => t === b.tags[i]);
}
