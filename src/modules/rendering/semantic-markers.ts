// Semantic list markers: a markdown-it token transform, run on the parsed token stream (never on
// HTML). A list item whose text starts with a marker and one space is marked with a class and the
// marker is removed; the stylesheet recolours the item and draws the marker's meaning as its
// bullet, so the meaning does not rest on colour alone.
import type { Token } from 'markdown-it';

export interface SemanticMarker {
  /** What the author writes at the start of the item, space included. */
  prefix: string;
  /** The class the item gets: `marker-<name>`. */
  name: 'true' | 'false' | 'warning' | 'therefore';
}

/** Check mark U+2713 (green, true), cross U+2717 (red, false), "! " (amber, warning), arrow U+2192 (primary, therefore). */
export const SEMANTIC_MARKERS: readonly SemanticMarker[] = Object.freeze([
  { prefix: '\u2713 ', name: 'true' },
  { prefix: '\u2717 ', name: 'false' },
  { prefix: '! ', name: 'warning' },
  { prefix: '\u2192 ', name: 'therefore' },
]);

function markerOf(text: string): SemanticMarker | undefined {
  return SEMANTIC_MARKERS.find((marker) => text.startsWith(marker.prefix));
}

/**
 * For each list item whose first paragraph's first text token starts with a marker: the marker is
 * cut from that text token and the item gets `class="marker-<name>"`. One pass over the tokens.
 * Only a literal marker counts: one written as an entity or a backslash escape is not a marker.
 */
export function applySemanticListMarkers(tokens: Token[]): void {
  for (let i = 0; i + 2 < tokens.length; i++) {
    const item = tokens[i];
    if (item.type !== 'list_item_open' || tokens[i + 1].type !== 'paragraph_open') continue;
    const inline = tokens[i + 2];
    const first = inline.type === 'inline' ? inline.children?.[0] : undefined;
    if (first === undefined || first.type !== 'text') continue;
    const marker = markerOf(first.content);
    if (marker === undefined) continue;
    first.content = first.content.slice(marker.prefix.length);
    item.attrJoin('class', `marker-${marker.name}`);
  }
}
