// `Delete deck` and the trash: a confirm page (/decks/:deckId/delete), then the deck goes to the
// trash through the API's deleteDeck (sessions abandoned, capacity freed, out of the search); the
// trash (/settings/trash) lists deleted decks, newest first, with when each is purged and a
// `Restore` button (restoreDeck: the same deck, ids and review history; DECK_LIMIT_REACHED at
// capacity, said in words). Every write counts one in the person's web bucket (`webWrite`,
// web-writes.ts; the deck to delete is checked to be theirs first). docs/web.md.
import type { FastifyInstance } from 'fastify';
import { AppError, isAppError } from '../../../errors.ts';
import { deleteDeck, listTrash, restoreDeck, TRASH_DAYS } from '../../../modules/decks/deck-trash.service.ts';
import { findOwnDeckInAnyState, ownDeckOrNotFound } from '../../../modules/decks/decks.service.ts';
import { field, renderPage, seeOther, SIGNED_IN, WEB_WRITE } from '../render.ts';
import { viewerOf } from '../session.ts';
import type { WebDeps } from '../web.surface.ts';
import { ownDeckOf } from '../web-writes.ts';
import { deckPath } from './deck-paths.ts';
import { shownTime } from '../time-words.ts';

export const TRASH_PER_PAGE = 50;

type Params = { deckId: string };

export function trashPages(scope: FastifyInstance, { ctx }: WebDeps): void {
  scope.get<{ Params: Params }>('/decks/:deckId/delete', SIGNED_IN, async (request, reply) => {
    // Another person's deck, or one already in the trash, is not found, as on the editor.
    const deck = await ownDeckOrNotFound(ctx, viewerOf(request), { deckId: request.params.deckId });
    return renderPage(request, reply, 'decks/delete', {
      title: `Delete “${deck.title}”?`, deck: { id: deck.id, title: deck.title, cardCount: deck.cardCount, editPath: `${deckPath(deck.id)}/edit` },
      version: deck.updatedAt, trashDays: TRASH_DAYS, noindex: true,
    });
  });

  scope.post<{ Params: Params }>('/decks/:deckId/delete', { ...WEB_WRITE, config: { webWrite: 'ownDeck' } }, async (request, reply) => {
    const deck = ownDeckOf(request);
    // No If-Match: the confirm page asked about the deck, whatever changed in it since.
    await deleteDeck(ctx, viewerOf(request), { deckId: deck.id });
    return seeOther(reply, `/settings/trash?deleted=${encodeURIComponent(deck.id)}`);
  });

  scope.get('/settings/trash', SIGNED_IN, async (request, reply) => {
    const owner = viewerOf(request);
    const after = field(request.query, 'after');
    const page = await listTrash(ctx, owner, { limit: TRASH_PER_PAGE, token: after === '' ? undefined : after });
    const now = ctx.clock.now();
    const notice = async (): Promise<{ text: string; link: { url: string; text: string } | null } | null> => {
      const deleted = field(request.query, 'deleted');
      const restored = field(request.query, 'restored');
      const id = deleted || restored;
      if (id === '') return null;
      const deck = await findOwnDeckInAnyState(ctx, owner, { deckId: id });
      if (deck === null) return null;
      return deleted !== ''
        ? { text: `“${deck.title}” is in the trash.`, link: null }
        : { text: `“${deck.title}” is restored.`, link: { url: `${deckPath(deck.id)}/edit`, text: `Edit ${deck.title}` } };
    };
    const problem = field(request.query, 'problem') === 'limit' ? 'You have as many decks as this server allows. Delete one to make room, then restore this one.' : null;
    return renderPage(request, reply, 'trash', {
      title: 'Trash',
      trashDays: TRASH_DAYS,
      notice: await notice(),
      problem,
      decks: page.decks.map((d) => ({
        id: d.id, title: d.title, cardCount: d.cardCount,
        deleted: shownTime(d.deletedAt, now), purge: shownTime(d.purgeAt, now),
        restoreAction: `/settings/trash/${encodeURIComponent(d.id)}/restore`,
      })),
      more: page.nextToken === null ? null : `/settings/trash?after=${encodeURIComponent(page.nextToken)}`,
    });
  });

  scope.post<{ Params: Params }>('/settings/trash/:deckId/restore', WEB_WRITE, async (request, reply) => {
    const owner = viewerOf(request);
    try {
      await restoreDeck(ctx, owner, { deckId: request.params.deckId });
    } catch (error) {
      if (isAppError(error) && error.code === 'DECK_LIMIT_REACHED') return seeOther(reply, '/settings/trash?problem=limit');
      if (isAppError(error) && error.code === 'DECK_FORBIDDEN') throw new AppError('DECK_NOT_FOUND', 'No such deck');
      throw error;
    }
    return seeOther(reply, `/settings/trash?restored=${encodeURIComponent(request.params.deckId)}`);
  });
}
