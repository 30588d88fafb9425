// Deck markdown export: any deck, written so that parsing it back gives the same deck.
import { normaliseCard } from '../cards/card-content.ts';
import type { CardDto, DeckDetail } from '../decks/decks.schemas.ts';
import { BLANK, DECK_MARKDOWN_VERSION, closesFence, fenceOpening, isStructure, type Fence } from './deck-markdown-syntax.ts';
import { isPlainObject, yamlValue } from './deck-markdown-yaml.ts';

// ---------------------------------------------------------------------------------------------
// Export

/** Whether the parser would read `text` back unchanged from a `## Front` / `## Back` section. */
function fitsSection(text: string): boolean {
  if (text === '') return true;
  if (text.includes('\r')) return false;
  const lines = text.split('\n');
  if (BLANK.test(lines[0]) || BLANK.test(lines[lines.length - 1])) return false;
  let fence: Fence | null = null;
  for (const line of lines) {
    if (fence) {
      if (closesFence(fence, line)) fence = null;
    } else if (isStructure(line)) {
      return false;
    } else {
      fence = fenceOpening(line, 0);
    }
  }
  return fence === null;
}

function fitsHeading(title: string): boolean {
  return title !== '' && !/[\r\n]/.test(title) && title.trim() === title;
}

/**
 * A YAML block: "key: value" lines, and one level of "  key: value" lines under a key holding a
 * mapping (media, extras). Values are single lines (yamlValue) that the importer reads without the
 * YAML library, however many cards a deck has.
 */
function toYaml(entries: Record<string, unknown>): string {
  let out = '';
  for (const [key, value] of Object.entries(entries)) {
    if (value === undefined) continue;
    const nested = isPlainObject(value) ? Object.entries(value).filter(([, v]) => v !== undefined) : [];
    if (nested.length === 0) {
      out += `${key}: ${yamlValue(value)}\n`;
      continue;
    }
    out += `${key}:\n`;
    for (const [inner, v] of nested) out += `  ${inner}: ${yamlValue(v)}\n`;
  }
  return out;
}

/** What an export needs of a deck: a read's fields (the URLs and times are not written). */
export type ExportableDeck = Partial<DeckDetail> & Pick<DeckDetail, 'title' | 'visibility' | 'cards'>;

export function exportDeckMarkdown(deck: ExportableDeck): string {
  const front: Record<string, unknown> = { version: DECK_MARKDOWN_VERSION };
  const heading = fitsHeading(deck.title);
  if (!heading) front.title = deck.title;
  if (deck.lang != null) front.lang = deck.lang;
  front.visibility = deck.visibility;
  // Null is written as absence: the import service turns an absent description/thumbnail into null.
  if (deck.description != null) front.description = deck.description;
  if (deck.tags !== undefined && deck.tags.length > 0) front.tags = deck.tags;
  if (deck.thumbnail != null) front.thumbnail = deck.thumbnail;
  const head = `---\n${toYaml(front)}---\n${heading ? `# ${deck.title}\n` : ''}`;
  return `${head}\n${deck.cards.map(exportCard).join('\n\n---\n\n')}\n`;
}

function exportCard(card: CardDto): string {
  const meta: Record<string, unknown> = {};
  if (card.oneSided) meta.oneSided = true;
  if (card.frontMedia != null) meta.frontMedia = card.frontMedia;
  if (card.backMedia != null) meta.backMedia = card.backMedia;
  const extras = exportedExtras(card);
  if (extras) meta.extras = extras;
  const sections: string[] = [];
  for (const [key, name] of [['front', 'Front'], ['back', 'Back']] as const) {
    const text = card[key];
    if (text === null) continue;
    if (fitsSection(text)) sections.push(text === '' ? `## ${name}` : `## ${name}\n${text}`);
    else meta[key] = text;
  }
  const block = Object.keys(meta).length > 0 ? `<!-- card\n${toYaml(meta)}-->` : null;
  if (sections.length === 0) return block ?? '';
  const body = sections.join('\n\n');
  return block ? `${block}\n${body}` : body;
}

/** The card's extras minus frontType/backType where they equal the default import would resolve. */
function exportedExtras(card: CardDto): Record<string, unknown> | null {
  if (!card.extras) return null;
  const rest: Record<string, unknown> = { ...card.extras };
  delete rest.frontType;
  delete rest.backType;
  // The defaults do not depend on templateData, which is written as stored (even content stored
  // before its limits existed exports: the JSON it was stored as is the JSON written).
  delete rest.templateData;
  const defaults = normaliseCard({ front: 'x', extras: rest }, 'extras').content.extras;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(card.extras)) {
    if (key === 'frontType' && value === defaults.frontType) continue;
    if (key === 'backType' && value === defaults.backType) continue;
    out[key] = value;
  }
  return Object.keys(out).length > 0 ? out : null;
}
