// The learning view (/decks/:deckId; the owner editor is editor.pages.ts), thin like the
// API's routes: read the request, call a service, render a template or redirect. A deck one may
// not see is DECK_NOT_FOUND, the web surface's 404 page, the same as for a deck that does not
// exist; a spent card-write bucket is its 429 page with Retry-After. These pages show KaTeX, so
// their CSP allows style attributes (and https images, for card media). docs/learning-view.md.
//
// The renderers (markdown-it, KaTeX, sanitize-html: 13.6 MB of RSS and 7 MB of live heap) are
// loaded by the first request to these pages, with the service and views that use them, so an
// instance that serves only the API and MCP never holds them (docs/performance.md).
import type { FastifyInstance, RouteShorthandOptions } from 'fastify';
import { AppError } from '../../../errors.ts';
import type { Actor } from '../../../modules/identity/principal.ts';
import type { DeckPage } from '../../../modules/learning/learning.service.ts';
import { cardNamesOf, ratingDueTimes } from '../../../modules/learning/study.service.ts';
import { RATINGS } from '../../../modules/reviews/reviews.schemas.ts';
import { renderPage, seeOther, SIGNED_IN_FORM } from '../render.ts';
import { pageHelmet } from '../../page-security.ts';
import { formOf, one, type Query } from '../form-fields.ts';
import { viewerOf } from '../session.ts';
import type { WebDeps } from '../web.surface.ts';
import { loadOnce } from '../../../load-once.ts';
import { deckPath } from './deck-paths.ts';

/** KaTeX's stylesheet (and through it its fonts), the card stylesheet, these pages' own. */
export const CARD_STYLESHEETS = ['/assets/katex/katex.min.css', '/assets/card.css', '/assets/learning.css'] as const;
/** A card without a formula needs no KaTeX stylesheet (24 KiB and a request less before first paint). */
const PLAIN_CARD_STYLESHEETS = CARD_STYLESHEETS.slice(1);

function showsMath(view: object): boolean {
  const card = (view as { card?: Record<string, string | null> }).card;
  return card !== undefined && Object.values(card).some((html) => html?.includes('class="katex') === true);
}

/** The card pages' CSP (cards may carry style attributes and https images); the editor's too. */
export const CARD_CSP = pageHelmet({ styleAttributes: true, httpsImages: true });
const ANYONE_CARDS: RouteShorthandOptions = { helmet: CARD_CSP };
export const OWNER_FORM: RouteShorthandOptions = { ...SIGNED_IN_FORM, helmet: CARD_CSP };

type Params = { deckId: string };
type Learning = typeof import('../../../modules/learning/learning.service.ts') & typeof import('./learning.views.ts');

/** The learning service and views, with the renderers under them, loaded once by the first request that needs them. */
function learningLoader(): () => Promise<Learning> {
  const learning = loadOnce(async (): Promise<Learning> => {
    const [service, views] = await Promise.all([import('../../../modules/learning/learning.service.ts'), import('./learning.views.ts')]);
    return { ...service, ...views };
  });
  return learning.get;
}

export function learningPages(scope: FastifyInstance, { ctx }: WebDeps): void {
  const learning = learningLoader();

  /** The owner's study view, with what its state needs: the buttons' intervals, or the cards' names. */
  async function study(owner: Actor, page: DeckPage, sessionId: string | undefined, answerShown: boolean) {
    const { studyDeck, studyView } = await learning();
    const state = await studyDeck(ctx, owner, page, { sessionId });
    const now = ctx.clock.now();
    if (state.kind === 'card') {
      const preview = await ratingDueTimes(ctx, owner, { cardId: state.card.id });
      return studyView(page, state, answerShown, { now: new Date(preview.now), ratingDue: preview.due });
    }
    if (state.kind === 'completed') return studyView(page, state, answerShown, { now, cardNames: await cardNamesOf(ctx, { deckId: page.deck.id }) });
    return studyView(page, state, answerShown, { now });
  }

  scope.get<{ Params: Params; Querystring: Query }>('/decks/:deckId', ANYONE_CARDS, async (request, reply) => {
    const { openDeck, browseView, indexable } = await learning();
    const viewer = request.viewer;
    const page = await openDeck(ctx, viewer, { deckId: request.params.deckId });
    const { query } = request;
    const answerShown = one(query, 'answer') === '1';
    const view = viewer === null || !page.isOwner || one(query, 'browse') === '1' || page.rendered.cards.length === 0
      ? browseView(page, Number(one(query, 'card') ?? '1'), answerShown)
      : await study(viewer, page, one(query, 'session'), answerShown);
    const noindex = !indexable(page.deck.visibility);
    if (noindex) void reply.header('X-Robots-Tag', 'noindex');
    return renderPage(request, reply, 'learning/learn', {
      ...view, title: page.deck.title, noindex, stylesheets: showsMath(view) ? CARD_STYLESHEETS : PLAIN_CARD_STYLESHEETS, scripts: ['/assets/learn.js'],
    });
  });

  scope.post<{ Params: Params }>('/decks/:deckId/review', OWNER_FORM, async (request, reply) => {
    const { openOwnDeck, rateCard } = await learning();
    const owner = viewerOf(request);
    const form = formOf(request.body);
    const page = await openOwnDeck(ctx, owner, { deckId: request.params.deckId });
    const rating = RATINGS.find((r) => r === form.rating);
    if (rating === undefined) throw new AppError('BAD_REQUEST', 'Choose Again, Hard, Good or Easy', { field: 'rating' });
    const duration = Number(form.durationMs);
    const sessionId = form.sessionId ?? '';
    const { completed } = await rateCard(ctx, owner, {
      sessionId, cardId: form.cardId ?? '', rating,
      durationMs: form.durationMs && Number.isInteger(duration) && duration >= 0 && duration <= 86_400_000 ? duration : undefined,
    });
    const base = deckPath(page.deck.id);
    return seeOther(reply, completed ? `${base}?session=${encodeURIComponent(sessionId)}` : base);
  });
}
