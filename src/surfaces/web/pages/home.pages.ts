// `/`: signed out, what Flashdeck is and how to start; signed in, the person's decks (the same
// listDecks as GET /api/v1/decks, newest change first, keyset pages of 50), each with its due and
// new cards (one grouped count for the page) and `Study now`.
import type { FastifyInstance } from 'fastify';
import { listDecks } from '../../../modules/decks/decks.service.ts';
import { dueCountsOfDecks } from '../../../modules/reviews/review-overview.service.ts';
import { shownTime } from '../time-words.ts';
import { field, renderPage } from '../render.ts';
import type { WebDeps } from '../web.surface.ts';
import { deckPath } from './deck-paths.ts';

export const DECKS_PER_PAGE = 50;

export function homePages(scope: FastifyInstance, { ctx }: WebDeps): void {
  scope.get('/', async (request, reply) => {
    const viewer = request.viewer;
    if (viewer === null) return renderPage(request, reply, 'home', { title: 'Flashdeck' });
    const after = field(request.query, 'after');
    const page = await listDecks(ctx, viewer, { limit: DECKS_PER_PAGE, token: after === '' ? undefined : after });
    const counts = await dueCountsOfDecks(ctx, viewer, { decks: page.items });
    const now = ctx.clock.now();
    return renderPage(request, reply, 'home', {
      title: 'My decks',
      decks: page.items.map((d) => {
        const count = counts.get(d.id);
        return {
          id: d.id, title: d.title, cardCount: d.cardCount, visibility: d.visibility, updated: d.updatedAt === null ? null : shownTime(d.updatedAt, now),
          due: count?.due ?? 0, new: count?.new ?? 0,
          nextDue: count?.nextDueAt ? shownTime(count.nextDueAt, now) : null,
          learnPath: deckPath(d.id), editPath: `${deckPath(d.id)}/edit`,
        };
      }),
      more: page.nextToken === null ? null : `/?after=${encodeURIComponent(page.nextToken)}`,
    });
  });
}
