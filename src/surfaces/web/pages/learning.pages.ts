// The learning view (/decks/:deckId) and the owner editor (/decks/:deckId/edit), thin like the
// API's routes: read the request, call a service, render a template or redirect. A deck one may
// not see is DECK_NOT_FOUND, the web surface's 404 page, the same as for a deck that does not
// exist; a spent card-write bucket is its 429 page with Retry-After. These pages show KaTeX, so
// their CSP allows style attributes (and https images, for card media). docs/learning-view.md.
//
// The renderers (markdown-it, KaTeX, sanitize-html: 13.6 MB of RSS and 7 MB of live heap) are
// loaded by the first request to these pages, with the service and views that use them, so an
// instance that serves only the API and MCP never holds them (docs/performance.md).
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler, RouteShorthandOptions } from 'fastify';
import { AppError } from '../../../errors.ts';
import type { Actor } from '../../../modules/identity/principal.ts';
import { cardDto } from '../../../modules/decks/decks.mappers.ts';
import { listCards } from '../../../modules/decks/decks.repository.ts';
import {
  addCard, moveCardTo, saveCard, saveDeckDetails, type FormFields, type SaveOutcome,
} from '../../../modules/learning/editor.service.ts';
import type { DeckPage } from '../../../modules/learning/learning.service.ts';
import { cardNamesOf, ratingDueTimes } from '../../../modules/learning/study.service.ts';
import { RATINGS } from '../../../modules/reviews/reviews.schemas.ts';
import { NO_READS } from '../../../policy/policy.ts';
import { pageMessage } from '../page-wording.ts';
import { renderPage, seeOther, SIGNED_IN, SIGNED_IN_FORM } from '../render.ts';
import { pageHelmet } from '../../page-security.ts';
import { viewerOf } from '../session.ts';
import type { WebDeps } from '../web.surface.ts';
import { loadOnce } from '../../../load-once.ts';
import { deckPath } from './deck-paths.ts';
import type { EditorInput } from './learning.views.ts';

/** KaTeX's stylesheet (and through it its fonts), the card stylesheet, these pages' own. */
export const CARD_STYLESHEETS = ['/assets/katex/katex.min.css', '/assets/card.css', '/assets/learning.css'] as const;
/** A card without a formula needs no KaTeX stylesheet (24 KiB and a request less before first paint). */
const PLAIN_CARD_STYLESHEETS = CARD_STYLESHEETS.slice(1);

function showsMath(view: object): boolean {
  const card = (view as { card?: Record<string, string | null> }).card;
  return card !== undefined && Object.values(card).some((html) => html?.includes('class="katex') === true);
}

const CARD_CSP = pageHelmet({ styleAttributes: true, httpsImages: true });
const ANYONE_CARDS: RouteShorthandOptions = { helmet: CARD_CSP };
const OWNER_CARDS: RouteShorthandOptions = { ...SIGNED_IN, helmet: CARD_CSP };
const OWNER_FORM: RouteShorthandOptions = { ...SIGNED_IN_FORM, helmet: CARD_CSP };

type Params = { deckId: string };
type CardParams = Params & { cardId: string };
type Query = Record<string, string | string[] | undefined>;

function one(query: Query, name: string): string | undefined {
  const value = query[name];
  return typeof value === 'string' ? value : undefined;
}

/** A form body as fields: every value a string; a repeated field is refused. */
function formOf(body: unknown): FormFields {
  if (body === null || typeof body !== 'object') return {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string') out[key] = value;
    else throw new AppError('BAD_REQUEST', `The form field ${key} must be sent once`, { field: key });
  }
  return out;
}

const NOTICES: Record<string, string> = { deck: 'Deck details saved.', card: 'Card saved.', moved: 'Card moved.' };

type Learning = typeof import('../../../modules/learning/learning.service.ts') & typeof import('./learning.views.ts');

/** The learning service and views, with the renderers under them, loaded once by the first request that needs them. */
function learningLoader(): () => Promise<Learning> {
  const learning = loadOnce(async (): Promise<Learning> => {
    const [service, views] = await Promise.all([import('../../../modules/learning/learning.service.ts'), import('./learning.views.ts')]);
    return { ...service, ...views };
  });
  return learning.get;
}

export function learningPages(scope: FastifyInstance, { ctx, policy }: WebDeps): void {
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

  async function editor(request: FastifyRequest, reply: FastifyReply, owner: Actor, deckId: string, extra: Partial<EditorInput>, status = 200) {
    const { openOwnDeck, editorView } = await learning();
    const page = await openOwnDeck(ctx, owner, { deckId });
    const cards = (await listCards(ctx.db, page.deck.id)).map(cardDto);
    const view = editorView({ page, cards, cardId: null, ...extra });
    void reply.header('X-Robots-Tag', 'noindex');
    return renderPage(request, reply, 'learning/edit', {
      ...view, title: `Edit “${page.deck.title}”`, noindex: true, stylesheets: CARD_STYLESHEETS, scripts: ['/assets/editor.js'],
    }, status);
  }

  scope.get<{ Params: Params; Querystring: Query }>('/decks/:deckId/edit', OWNER_CARDS, async (request, reply) => {
    const saved = one(request.query, 'saved');
    return editor(request, reply, viewerOf(request), request.params.deckId, {
      cardId: one(request.query, 'card') ?? null,
      notice: saved === undefined ? undefined : NOTICES[saved],
    });
  });

  /** A refused save: the editor again, with the problem and everything the person typed. */
  async function refused(request: FastifyRequest, reply: FastifyReply, deckId: string, failed: SaveOutcome<unknown> & { ok: false }, input: Partial<EditorInput>) {
    const { openOwnDeck, renderedPreview } = await learning();
    const owner = viewerOf(request);
    const conflict = failed.currentVersion !== null;
    let saved: string | undefined;
    if (conflict && input.cardId) {
      const current = (await openOwnDeck(ctx, owner, { deckId })).rendered.cards.find((c) => c.id === input.cardId);
      saved = current === undefined ? undefined : renderedPreview(current);
    }
    return editor(request, reply, owner, deckId, {
      ...input,
      version: failed.currentVersion ?? undefined,
      saved,
      deckConflict: conflict && input.deckForm !== undefined,
      problem: conflict
        ? {
          heading: 'This deck was changed meanwhile',
          message: 'Someone changed this deck after you opened the editor, so nothing was saved. What you typed is still in the form; the saved version is shown below it. Save again to replace it with yours.',
        }
        : { heading: 'Not saved', message: pageMessage(failed.problem) },
    }, conflict ? 409 : failed.problem.status);
  }

  /**
   * The card-write routes declare their bucket as the API's routes declare theirs: after sign-in
   * and CSRF, the person's web card-write bucket (policy.cardWriteBucket: the 429 page with
   * Retry-After when spent). Someone else's deck is 404 before it costs them.
   */
  const OWNER_CARD_WRITE: RouteShorthandOptions = {
    ...OWNER_FORM,
    preHandler: [...(SIGNED_IN_FORM.preHandler as preHandlerHookHandler[]), async (request: FastifyRequest) => {
      const owner = viewerOf(request);
      const { openOwnDeck } = await learning();
      await openOwnDeck(ctx, owner, { deckId: (request.params as Params).deckId });
      await policy.admit(policy.cardWriteBucket(owner), null, NO_READS);
    }],
  };

  scope.post<{ Params: Params }>('/decks/:deckId/edit/deck', OWNER_FORM, async (request, reply) => {
    const form = formOf(request.body);
    const { deckId } = request.params;
    const result = await saveDeckDetails(ctx, viewerOf(request), { deckId, version: form.version ?? '', form });
    if (!result.ok) return refused(request, reply, deckId, result, { deckForm: form });
    return seeOther(reply, `${deckPath(deckId)}/edit?saved=deck`);
  });

  scope.post<{ Params: Params }>('/decks/:deckId/edit/cards', OWNER_CARD_WRITE, async (request, reply) => {
    const owner = viewerOf(request);
    const form = formOf(request.body);
    const { deckId } = request.params;
    const result = await addCard(ctx, owner, { deckId, version: form.version ?? '', form });
    if (!result.ok) return refused(request, reply, deckId, result, { cardForm: form });
    return seeOther(reply, `${deckPath(deckId)}/edit?card=${encodeURIComponent(result.value.id)}&saved=card`);
  });

  scope.post<{ Params: CardParams }>('/decks/:deckId/edit/cards/:cardId', OWNER_CARD_WRITE, async (request, reply) => {
    const owner = viewerOf(request);
    const form = formOf(request.body);
    const { deckId, cardId } = request.params;
    const result = await saveCard(ctx, owner, { deckId, cardId, version: form.version ?? '', form });
    if (!result.ok) return refused(request, reply, deckId, result, { cardForm: form, cardId });
    return seeOther(reply, `${deckPath(deckId)}/edit?card=${encodeURIComponent(cardId)}&saved=card`);
  });

  scope.post<{ Params: CardParams }>('/decks/:deckId/edit/cards/:cardId/move', OWNER_CARD_WRITE, async (request, reply) => {
    const owner = viewerOf(request);
    const form = formOf(request.body);
    const { deckId, cardId } = request.params;
    // The form counts from 1, as the list shows; the service from 0.
    const result = await moveCardTo(ctx, owner, { deckId, cardId, version: form.version ?? '', form: { to: String(Number(form.to) - 1) } });
    if (!result.ok) return refused(request, reply, deckId, result, { cardId });
    return seeOther(reply, `${deckPath(deckId)}/edit?card=${encodeURIComponent(cardId)}&saved=moved`);
  });

  // The live preview: the card form rendered by the one renderer, as an HTML fragment; nothing is saved.
  scope.post<{ Params: Params }>('/decks/:deckId/edit/preview', OWNER_FORM, async (request, reply) => {
    const { openOwnDeck, previewHtml } = await learning();
    await openOwnDeck(ctx, viewerOf(request), { deckId: request.params.deckId });
    return reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-store').header('X-Robots-Tag', 'noindex')
      .send(previewHtml(formOf(request.body)));
  });
}
