// The learning view and the owner editor: routes of the web surface (src/surfaces/web), thin like
// the API's: read the request, call a service, render a template or redirect. Errors are thrown
// as catalog errors and rendered by the web surface's error page (a 404 page for a deck one may
// not see, a 429 page with Retry-After when the card-write bucket is spent).
import { createRequire } from 'node:module';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import type { Policy } from '../../policy/policy.ts';
import type { Actor } from '../identity/principal.ts';
import { RATINGS } from '../reviews/reviews.schemas.ts';
import { cardDto } from '../decks/decks.mappers.ts';
import { listCards } from '../decks/decks.repository.ts';
import { addCard, moveCardTo, saveCard, saveDeckDetails, type FormFields, type SaveOutcome } from './editor.service.ts';
import { openDeck, openOwnDeck, rateCard, studyDeck } from './learning.service.ts';
import { browseView, deckPath, editorView, indexable, previewHtml, renderedPreview, studyView, type EditorInput } from './learning.views.ts';

export interface LearningPageDeps {
  ctx: ServiceContext;
  policy: Policy;
  /** The signed-in person, or null. */
  viewer(request: FastifyRequest): Actor | null;
  /** The signed-in person; a signed-out visitor is sent to sign in (thrown or answered by the surface). */
  requireUser(request: FastifyRequest, reply: FastifyReply): Actor;
  /** The CSRF token for the forms of this response. */
  csrfToken(request: FastifyRequest, reply: FastifyReply): string;
  /** Renders a template of views/ inside the page layout. */
  page(reply: FastifyReply, template: string, data: PageData): FastifyReply | Promise<FastifyReply>;
}

export interface PageData {
  /** The document's title. */
  pageTitle: string;
  /** `noindex` for what search engines must not list. */
  robots?: 'noindex' | undefined;
  /** Stylesheets and scripts of the page beyond the layout's own (served by the service). */
  styles?: readonly string[];
  scripts?: readonly string[];
  /** The document's language (the deck's). */
  lang?: string;
  [key: string]: unknown;
}

/** KaTeX's stylesheet and fonts, and the card stylesheet, as the pages link them. */
export const CARD_STYLES = ['/assets/katex/katex.min.css', '/assets/card.css', '/assets/learning.css'] as const;

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

function redirect(reply: FastifyReply, url: string): FastifyReply {
  return reply.code(303).header('Location', url).send();
}

export function learningPages(app: FastifyInstance, deps: LearningPageDeps): void {
  const { ctx, policy } = deps;

  function learnPage(reply: FastifyReply, deck: { title: string; lang: string; visibility: Parameters<typeof indexable>[0] }, data: object) {
    const robots = indexable(deck.visibility) ? undefined : 'noindex';
    if (robots !== undefined) reply.header('X-Robots-Tag', 'noindex');
    return deps.page(reply, 'learning/learn.eta', {
      ...data, pageTitle: deck.title, robots, lang: deck.lang, styles: CARD_STYLES, scripts: ['/assets/learn.js'],
    });
  }

  app.get<{ Params: Params; Querystring: Query }>('/decks/:deckId', async (request, reply) => {
    const viewer = deps.viewer(request);
    const page = await openDeck(ctx, viewer, { deckId: request.params.deckId });
    const query = request.query;
    const answerShown = one(query, 'answer') === '1';
    if (!page.isOwner || viewer === null || one(query, 'browse') === '1' || page.rendered.cards.length === 0) {
      return learnPage(reply, page.deck, browseView(page, Number(one(query, 'card') ?? '1'), answerShown));
    }
    const state = await studyDeck(ctx, viewer, page, { sessionId: one(query, 'session') });
    return learnPage(reply, page.deck, studyView(page, state, answerShown, deps.csrfToken(request, reply)));
  });

  app.post<{ Params: Params }>('/decks/:deckId/review', async (request, reply) => {
    const owner = deps.requireUser(request, reply);
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
    return redirect(reply, completed ? `${base}?session=${encodeURIComponent(sessionId)}` : base);
  });

  async function editor(request: FastifyRequest, reply: FastifyReply, owner: Actor, deckId: string, extra: Partial<EditorInput>) {
    const page = await openOwnDeck(ctx, owner, { deckId });
    const cards = (await listCards(ctx.db, page.deck.id)).map(cardDto);
    const view = editorView({ page, cards, csrf: deps.csrfToken(request, reply), cardId: null, ...extra });
    reply.header('X-Robots-Tag', 'noindex');
    return deps.page(reply, 'learning/edit.eta', {
      ...view, pageTitle: `Edit ${page.deck.title}`, robots: 'noindex', styles: CARD_STYLES, scripts: ['/assets/editor.js'],
    });
  }

  app.get<{ Params: Params; Querystring: Query }>('/decks/:deckId/edit', async (request, reply) => {
    const owner = deps.requireUser(request, reply);
    const saved = one(request.query, 'saved');
    return editor(request, reply, owner, request.params.deckId, {
      cardId: one(request.query, 'card') ?? null,
      notice: saved === 'deck' ? 'Deck details saved.' : saved === 'card' ? 'Card saved.' : saved === 'moved' ? 'Card moved.' : undefined,
    });
  });

  /** A refused save: the editor again, with the problem and everything the person typed. */
  async function refused(request: FastifyRequest, reply: FastifyReply, owner: Actor, deckId: string, failed: SaveOutcome<unknown> & { ok: false }, input: Partial<EditorInput>) {
    const conflict = failed.currentVersion !== null;
    let saved: string | undefined;
    if (conflict && input.cardId) {
      const page = await openOwnDeck(ctx, owner, { deckId });
      const current = page.rendered.cards.find((c) => c.id === input.cardId);
      saved = current === undefined ? undefined : renderedPreview(current);
    }
    reply.code(conflict ? 409 : failed.problem.status);
    return editor(request, reply, owner, deckId, {
      ...input,
      version: failed.currentVersion ?? undefined,
      saved,
      problem: conflict
        ? {
          heading: 'This deck was changed meanwhile',
          message: 'Someone changed this deck after you opened the editor, so nothing was saved. What you typed is still in the form; the saved version is shown below it. Save again to replace it with yours.',
        }
        : { heading: 'Not saved', message: failed.problem.message },
    });
  }

  app.post<{ Params: Params }>('/decks/:deckId/edit/deck', async (request, reply) => {
    const owner = deps.requireUser(request, reply);
    const form = formOf(request.body);
    const { deckId } = request.params;
    const result = await saveDeckDetails(ctx, owner, { deckId, version: form.version ?? '', form });
    if (!result.ok) return refused(request, reply, owner, deckId, result, { deckForm: form });
    return redirect(reply, `${deckPath(deckId)}/edit?saved=deck`);
  });

  /** Card writes count against the person's web bucket (429 page with Retry-After when spent). */
  async function admitCardWrite(owner: Actor): Promise<void> {
    await policy.admit(policy.cardWriteBucket(owner), null, []);
  }

  app.post<{ Params: Params }>('/decks/:deckId/edit/cards', async (request, reply) => {
    const owner = deps.requireUser(request, reply);
    const form = formOf(request.body);
    const { deckId } = request.params;
    await openOwnDeck(ctx, owner, { deckId });
    await admitCardWrite(owner);
    const result = await addCard(ctx, owner, { deckId, version: form.version ?? '', form });
    if (!result.ok) return refused(request, reply, owner, deckId, result, { cardForm: form });
    return redirect(reply, `${deckPath(deckId)}/edit?card=${encodeURIComponent(result.value.id)}&saved=card`);
  });

  app.post<{ Params: CardParams }>('/decks/:deckId/edit/cards/:cardId', async (request, reply) => {
    const owner = deps.requireUser(request, reply);
    const form = formOf(request.body);
    const { deckId, cardId } = request.params;
    await openOwnDeck(ctx, owner, { deckId });
    await admitCardWrite(owner);
    const result = await saveCard(ctx, owner, { deckId, cardId, version: form.version ?? '', form });
    if (!result.ok) return refused(request, reply, owner, deckId, result, { cardForm: form, cardId });
    return redirect(reply, `${deckPath(deckId)}/edit?card=${encodeURIComponent(cardId)}&saved=card`);
  });

  app.post<{ Params: CardParams }>('/decks/:deckId/edit/cards/:cardId/move', async (request, reply) => {
    const owner = deps.requireUser(request, reply);
    const form = formOf(request.body);
    const { deckId, cardId } = request.params;
    await openOwnDeck(ctx, owner, { deckId });
    await admitCardWrite(owner);
    // The form counts from 1, as the list shows; the service from 0.
    const to = String(Number(form.to) - 1);
    const result = await moveCardTo(ctx, owner, { deckId, cardId, version: form.version ?? '', form: { to } });
    if (!result.ok) return refused(request, reply, owner, deckId, result, { cardId });
    return redirect(reply, `${deckPath(deckId)}/edit?card=${encodeURIComponent(cardId)}&saved=moved`);
  });

  app.post<{ Params: Params }>('/decks/:deckId/edit/preview', async (request, reply) => {
    const owner = deps.requireUser(request, reply);
    await openOwnDeck(ctx, owner, { deckId: request.params.deckId });
    reply.header('X-Robots-Tag', 'noindex');
    return reply.type('text/html; charset=utf-8').send(previewHtml(formOf(request.body)));
  });
}

const KATEX_DIST = path.dirname(createRequire(import.meta.url).resolve('katex/dist/katex.min.css'));

/**
 * KaTeX's stylesheet and fonts under /assets/katex/, from the installed package (no CDN): only
 * katex.min.css and fonts/, cached for a day (they change with the package version only).
 */
export async function katexAssets(scope: FastifyInstance): Promise<void> {
  await scope.register(fastifyStatic, {
    root: KATEX_DIST,
    prefix: '/assets/katex/',
    decorateReply: false,
    index: false,
    maxAge: '1d',
    allowedPath: (pathname) => pathname === '/katex.min.css' || /^\/fonts\/KaTeX_[\w-]+\.(?:woff2|woff|ttf)$/.test(pathname),
  });
}
