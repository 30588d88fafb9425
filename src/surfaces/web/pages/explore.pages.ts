// /explore: every user's public decks (never unlisted or private ones), newest first or by
// relevance to `Search public decks`, through the API's listPublicDecks; each opens in the
// learning view, and a signed-in person may `Copy to my decks` (copyPublicDeck: a private copy
// with new ids, within the deck limit; one unit of the web bucket), then lands in the copy's
// editor. docs/web.md, "Managing decks".
import type { FastifyInstance } from 'fastify';
import { isAppError } from '../../../errors.ts';
import { copyPublicDeck, listPublicDecks } from '../../../modules/decks/public-decks.service.ts';
import { field, renderPage, seeOther, WEB_WRITE } from '../render.ts';
import { viewerOf } from '../session.ts';
import type { WebDeps } from '../web.surface.ts';
import { deckPath } from './deck-paths.ts';
import { refusalText } from './manage.pages.ts';

export const PUBLIC_DECKS_PER_PAGE = 25;

type Params = { deckId: string };

function excerpt(text: string | null): string | null {
  if (text === null) return null;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat || null;
}

export function explorePages(scope: FastifyInstance, { ctx }: WebDeps): void {
  scope.get('/explore', async (request, reply) => {
    const q = field(request.query, 'q').trim().slice(0, 200);
    const after = field(request.query, 'after');
    const page = await listPublicDecks(ctx, { limit: PUBLIC_DECKS_PER_PAGE, q: q === '' ? undefined : q, token: after === '' ? undefined : after });
    const more = new URLSearchParams();
    if (q !== '') more.set('q', q);
    if (page.nextToken !== null) more.set('after', page.nextToken);
    const problem = field(request.query, 'problem');
    return renderPage(request, reply, 'explore', {
      title: 'Explore public decks',
      q,
      problem: problem === 'limit' ? 'You have as many decks as this server allows. Delete one to make room, then copy this one.' : null,
      decks: page.decks.map((d) => ({
        id: d.id, title: d.title, cardCount: d.cardCount, lang: d.lang, tags: d.tags, description: excerpt(d.description),
        learnPath: deckPath(d.id), copyAction: `/explore/${encodeURIComponent(d.id)}/copy`,
      })),
      more: page.nextToken === null ? null : `/explore?${more.toString()}`,
      signInUrl: `/signin?next=${encodeURIComponent(`/explore${q === '' ? '' : `?q=${encodeURIComponent(q)}`}`)}`,
    });
  });

  scope.post<{ Params: Params }>('/explore/:deckId/copy', WEB_WRITE, async (request, reply) => {
    const owner = viewerOf(request);
    let copyId: string;
    try {
      copyId = (await copyPublicDeck(ctx, owner, { deckId: request.params.deckId })).id;
    } catch (error) {
      if (isAppError(error) && error.code === 'DECK_LIMIT_REACHED') return seeOther(reply, '/explore?problem=limit');
      if (isAppError(error) && error.status < 500 && error.code !== 'DECK_NOT_FOUND') {
        return await renderPage(request, reply, 'error', { title: 'Not copied', message: refusalText(error), code: error.code }, error.status);
      }
      throw error;
    }
    return seeOther(reply, `${deckPath(copyId)}/edit?saved=copied`);
  });
}
