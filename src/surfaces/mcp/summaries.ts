// The one-line text beside each tool result's structuredContent: what a model (or a person reading
// the transcript) needs at a glance. The structured result is the authority.
import type { AppendCardsResult, Capacity, CardDto, DeckList, DeckSummary, ImportResult } from '../../modules/decks/decks.schemas.ts';
import type { CardsPatchResult, DeleteCardResult, MoveCardResult } from '../../modules/decks/decks.schemas.ts';
import type { AnswerResult, Due, Schedule, Session, SessionList } from '../../modules/reviews/reviews.schemas.ts';

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
  start_review: (s: Session) => `${sessionLine(s)}${s.next !== null ? `; next card ${s.next.id} (in structuredContent.next)` : s.cards.length > 0 ? '' : '; nothing is due'}`,
  get_review: sessionLine,
  answer_card: (a: AnswerResult) =>
    `Recorded ${a.answer.rating} for card ${a.answer.cardId}; ${a.progress.answered} of ${a.progress.total} answered, ${a.progress.remaining} remaining; next due ${a.nextDue}` +
    (a.next === null ? '' : `; next card ${a.next.id}`),
  get_card: (card: CardDto) => `Card ${card.id} at position ${card.order}`,
  delete_card: (r: DeleteCardResult) => `Deleted; deck ${r.deckId} now has ${r.cardCount} cards, version ${r.version ?? 'none'}`,
  move_card: (r: MoveCardResult) => `Card ${r.card.id} is now at position ${r.card.order}; deck version ${r.version ?? 'none'}`,
  update_cards: (r: CardsPatchResult) => `${r.cards.length} cards of deck ${r.deckId} as they now are; version ${r.version ?? 'none'}`,
  list_due: (d: Due) => `${d.total.due} cards due and ${d.total.new} new across ${d.decks.length} decks`,
  get_schedule: (s: Schedule) => `${s.cards.length} cards of deck ${s.deckId}; ${s.cards.filter((c) => c.state === 'new').length} never reviewed`,
  list_reviews: (l: SessionList) => `${l.sessions.length} sessions${l.nextToken === null ? '' : '. More pages: pass nextToken as token'}`,
  complete_review: (s: Session) => {
    const accuracy = s.stats?.accuracy;
    return `${sessionLine(s)}${accuracy === null || accuracy === undefined ? '' : `; accuracy ${Math.round(accuracy * 100)}%`}`;
  },
};

export function summarise(tool: string, body: object, replayed: boolean): string {
  const line = summaries[tool]?.(body as never) ?? `${tool} done`;
  return replayed ? `${line} (replayed: the first call with this idempotencyKey already did this; nothing was done again)` : line;
}
