// The one-line text beside each tool result's structuredContent: what a model (or a person reading
// the transcript) needs at a glance. The structured result is the authority. Each tool writes its
// own line (`summary` in its entry, tools.ts and deck-tools.ts) with the pieces below.
import type { DeckSummary } from '../../modules/decks/decks.schemas.ts';
import type { Session } from '../../modules/reviews/reviews.schemas.ts';

/** A title or name in a line, quoted and cut at 80 characters. */
export const quote = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);

export function deckLine(deck: DeckSummary): string {
  return `${quote(deck.title)} (${deck.id}, ${deck.cardCount} cards, version ${deck.version ?? 'none'})`;
}

export function sessionLine(session: Session): string {
  const { answered, total } = session.progress;
  return `Session ${session.id} for deck ${session.deckId} is ${session.status}: ${answered} of ${total} cards answered`;
}

/** A line that says more pages follow, when they do. */
export const morePages = (nextToken: string | null) => (nextToken === null ? '' : '. More pages: pass nextToken as token');

/** The tool's line for its result, and what a replay did not do. */
export function summarise(tool: { readonly summary: (body: never) => string }, body: object, replayed: boolean): string {
  const line = tool.summary(body as never);
  return replayed ? `${line} (replayed: the first call with this idempotencyKey already did this; nothing was done again)` : line;
}
