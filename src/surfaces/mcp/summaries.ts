// The one-line text beside each tool result's structuredContent: what a model (or a person reading
// the transcript) needs at a glance. The structured result is the authority.
import type { AppendCardsResult, Capacity, CardDto, DeckList, DeckSummary, ImportResult } from '../../modules/decks/decks.schemas.ts';
import type { AnswerResult, Session } from '../../modules/reviews/reviews.schemas.ts';

const quote = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);

function deckLine(deck: DeckSummary): string {
  return `${quote(deck.title)} (${deck.id}, ${deck.cardCount} cards, version ${deck.version ?? 'none'})`;
}

function sessionLine(session: Session): string {
  const { answered, total } = session.progress;
  return `Session ${session.id} for deck ${session.deckId} is ${session.status}: ${answered} of ${total} cards answered`;
}

const summaries: Partial<Record<string, (body: never) => string>> = {
  whoami: (who: { userId: string; scopes: string[]; source: string; token: { name: string; prefix: string } }) =>
    `Token ${quote(who.token.name)} (${who.token.prefix}, ${who.source}) of user ${who.userId}; scopes: ${who.scopes.join(', ') || 'none'}`,
  get_capacity: (c: Capacity) =>
    `${c.current_decks} decks of ${c.deck_limit ?? 'unlimited'}; ${c.can_create ? 'another deck can be created' : 'no new deck can be created'}`,
  list_decks: (list: DeckList) => {
    const shown = list.items.slice(0, 5).map(deckLine).join('; ');
    const more = list.items.length > 5 ? `; and ${list.items.length - 5} more` : '';
    return `${list.items.length} decks${list.items.length > 0 ? `: ${shown}${more}` : ''}${list.nextToken === null ? '' : '. More pages: pass nextToken as token'}`;
  },
  get_deck: (deck: DeckSummary) => `Deck ${deckLine(deck)}; the cards are in structuredContent.cards`,
  update_deck: (deck: DeckSummary) => `Deck ${deckLine(deck)} as it now is`,
  import_deck: (r: ImportResult) => {
    const warnings = r.warnings?.length ?? 0;
    return `${r.mode === 'create' ? 'Created' : 'Updated'} deck ${quote(r.title ?? '')} (${r.deckId}) with ${r.cardCount} cards, version ${r.version ?? 'none'}` +
      `${warnings > 0 ? `; ${warnings} warnings in structuredContent.warnings` : ''}; view it at ${r.previewUrl}`;
  },
  append_cards: (r: AppendCardsResult) => `Appended ${r.addedCount} cards to deck ${r.deckId}: now ${r.cardCount} cards, version ${r.version ?? 'none'}`,
  update_card: (card: CardDto) => `Card ${card.id} (position ${card.order}) as it now is`,
  start_review: (s: Session) => `${sessionLine(s)}${s.cards.length > 0 ? `; first card ${s.cards.at(s.progress.answered) ?? s.cards.at(0) ?? ''}` : '; nothing is due'}`,
  get_review: sessionLine,
  answer_card: (a: AnswerResult) =>
    `Recorded ${a.answer.rating} for card ${a.answer.cardId}; ${a.progress.answered} of ${a.progress.total} answered, ${a.progress.remaining} remaining; next due ${a.nextDue}`,
  complete_review: (s: Session) => {
    const accuracy = s.stats?.accuracy;
    return `${sessionLine(s)}${accuracy === null || accuracy === undefined ? '' : `; accuracy ${Math.round(accuracy * 100)}%`}`;
  },
};

export function summarise(tool: string, body: object, replayed: boolean): string {
  const line = summaries[tool]?.(body as never) ?? `${tool} done`;
  return replayed ? `${line} (replayed: the first call with this idempotencyKey already did this; nothing was done again)` : line;
}
