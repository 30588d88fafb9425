// The owner editor (/decks/:deckId/edit), thin like the API's routes: read the form, call a
// service, redirect (post/redirect/get) or show the refusal beside what was typed. A deck one may
// not edit is DECK_NOT_FOUND, the 404 page; a card write is declared `webWrite: 'ownDeck'`
// (web-writes.ts: the deck is checked to be theirs, then the write admitted in the web bucket, the
// 429 page with Retry-After when spent) and hands the deck it read to the write.
// A big deck's editor is a searchable list of its cards beside one card's form (editor.views.ts);
// `Add card` leads to the next new card's form. A card form may carry an image for either side:
// it goes into the media store through the same service as POST /media (its limits, its quota),
// and the side's Image URL becomes the stored image's address. docs/web.md, "The editor".
//
// The renderers are loaded by the first request to these pages, as for the learning view.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { AppError, isAppError } from '../../../errors.ts';
import type { Actor } from '../../../modules/identity/principal.ts';
import {
  addCard, moveCardTo, saveCard, saveDeckDetails, type FormFields, type SaveOutcome,
} from '../../../modules/learning/editor.service.ts';
import { deleteDeckCard } from '../../../modules/cards/cards.service.ts';
import { ownDeckOrNotFound } from '../../../modules/decks/decks.service.ts';
import { MAX_IMAGE_BYTES } from '../../../modules/media/image-probe.ts';
import { uploadMedia } from '../../../modules/media/media.service.ts';
import { fieldMessage } from '../field-messages.ts';
import { renderPage, seeOther, SIGNED_IN } from '../render.ts';
import { formOf, one, type Query } from '../form-fields.ts';
import { requireViewer, viewerOf } from '../session.ts';
import { uploadedFile, uploadLimits } from '../uploads.ts';
import type { WebDeps } from '../web.surface.ts';
import { ownDeckOf } from '../web-writes.ts';
import { deckPath } from './deck-paths.ts';
import type { EditorInput } from './editor.views.ts';
import { CARD_CSP, CARD_STYLESHEETS, OWNER_FORM } from './learning.pages.ts';

/** KaTeX's stylesheet only when a formula is on the page (24 KiB and a request less before first paint); the preview's script adds it when a formula appears. */
const PLAIN_STYLESHEETS = CARD_STYLESHEETS.slice(1);

const OWNER_CARDS: RouteShorthandOptions = { ...SIGNED_IN, helmet: CARD_CSP };
/** A card write: the deck checked to be the person's, then admitted in their web bucket (web-writes.ts). */
const OWNER_CARD_WRITE: RouteShorthandOptions = { ...OWNER_FORM, config: { webWrite: 'ownDeck' } };
/** A card form: sign-in checked before the body is read, then at most one image a side. */
const OWNER_CARD_FORM: RouteShorthandOptions = {
  ...OWNER_FORM, onRequest: requireViewer, config: { ...uploadLimits({ files: 2, fileSize: MAX_IMAGE_BYTES }), webWrite: 'ownDeck' },
};

type Params = { deckId: string };
type CardParams = Params & { cardId: string };
const NOTICES: Record<string, string> = { deck: 'Deck details saved.', card: 'Card saved.', moved: 'Card moved.', created: 'Deck created. Write its first card below.', copied: 'Copied into your decks: this copy is yours to change.', deleted: 'Card deleted.' };

type Editor = typeof import('../../../modules/learning/learning.service.ts') & typeof import('./editor.views.ts');

function editorLoader(): () => Promise<Editor> {
  let loading: Promise<Editor> | null = null;
  return () => loading ??= Promise.all([import('../../../modules/learning/learning.service.ts'), import('./editor.views.ts')]).then(
    ([service, views]) => ({ ...service, ...views }),
    (error: unknown) => { loading = null; throw error; },
  );
}

/** Uploaded images become the sides' Image URL (a refusal of the image is the form's problem). */
async function withUploadedImages(ctx: WebDeps['ctx'], owner: Actor, body: unknown, form: FormFields): Promise<{ form: FormFields; problem: AppError | null }> {
  const out: Record<string, string | undefined> = { ...form };
  for (const side of ['front', 'back'] as const) {
    const file = uploadedFile(body, `${side}ImageFile`);
    if (file === null) continue;
    try {
      const media = await uploadMedia(ctx, owner, { data: file.data, declaredType: null });
      out[`${side}ImageUrl`] = media.url;
    } catch (error) {
      if (isAppError(error) && error.status < 500) return { form: out, problem: error };
      throw error;
    }
  }
  return { form: out, problem: null };
}

const IMAGE_WORDS: Record<string, string> = {
  IMAGE_TYPE_UNSUPPORTED: 'Image file: choose a PNG, JPEG, GIF or WebP image.',
  IMAGE_SVG_REFUSED: 'Image file: SVG images are not accepted; choose a PNG, JPEG, GIF or WebP image.',
  IMAGE_UNREADABLE: 'Image file: the image cannot be read; it may be damaged.',
  IMAGE_DIMENSIONS_TOO_LARGE: 'Image file: the image is too large (at most 16,384 pixels a side and 40 megapixels).',
  MEDIA_QUOTA_EXCEEDED: 'Image file: this image would take you over your storage for images.',
  PAYLOAD_TOO_LARGE: 'Image file: at most 5 MB.',
};

export function editorPages(scope: FastifyInstance, { ctx }: WebDeps): void {
  const load = editorLoader();

  async function editor(request: FastifyRequest, reply: FastifyReply, owner: Actor, deckId: string, extra: Partial<EditorInput>, status = 200) {
    const { openOwnDeck, cardsOfDeck, editorView } = await load();
    const page = await openOwnDeck(ctx, owner, { deckId });
    const cards = await cardsOfDeck(ctx, page);
    const view = editorView({ page, cards, cardId: null, ...extra });
    void reply.header('X-Robots-Tag', 'noindex');
    const math = view.form.preview.includes('class="katex') || (view.saved?.includes('class="katex') ?? false);
    return renderPage(request, reply, 'learning/edit', {
      ...view, title: `Edit “${page.deck.title}”`, noindex: true, stylesheets: math ? CARD_STYLESHEETS : PLAIN_STYLESHEETS, scripts: ['/assets/editor.js'],
      katexStylesheet: CARD_STYLESHEETS[0],
    }, status);
  }

  scope.get<{ Params: Params; Querystring: Query }>('/decks/:deckId/edit', OWNER_CARDS, async (request, reply) => {
    const saved = one(request.query, 'saved');
    return editor(request, reply, viewerOf(request), request.params.deckId, {
      cardId: one(request.query, 'card') ?? null,
      query: one(request.query, 'q')?.slice(0, 200) ?? '',
      added: one(request.query, 'added'),
      notice: saved === undefined ? undefined : NOTICES[saved],
    });
  });

  /** A refused save: the editor again, with the problem and everything the person typed. */
  async function refused(request: FastifyRequest, reply: FastifyReply, deckId: string, failed: SaveOutcome<unknown> & { ok: false }, input: Partial<EditorInput>) {
    const { openOwnDeck, renderedPreview } = await load();
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
        : { heading: 'Not saved', message: IMAGE_WORDS[failed.problem.code] ?? fieldMessage(failed.problem) },
    }, conflict ? 409 : failed.problem.status);
  }

  scope.post<{ Params: Params }>('/decks/:deckId/edit/deck', OWNER_FORM, async (request, reply) => {
    const form = formOf(request.body);
    const { deckId } = request.params;
    const result = await saveDeckDetails(ctx, viewerOf(request), { deckId, version: form.version ?? '', form });
    if (!result.ok) return refused(request, reply, deckId, result, { deckForm: form });
    return seeOther(reply, `${deckPath(deckId)}/edit?saved=deck`);
  });

  scope.post<{ Params: Params }>('/decks/:deckId/edit/cards', OWNER_CARD_FORM, async (request, reply) => {
    const owner = viewerOf(request);
    const { deckId } = request.params;
    const { form, problem } = await withUploadedImages(ctx, owner, request.body, formOf(request.body));
    if (problem !== null) return refused(request, reply, deckId, { ok: false, problem, currentVersion: null }, { cardForm: form });
    const result = await addCard(ctx, owner, { deckId, version: form.version ?? '', form, ownDeck: ownDeckOf(request) });
    if (!result.ok) return refused(request, reply, deckId, result, { cardForm: form });
    // The next new card's form, with the one just added named (and linked) above it.
    return seeOther(reply, `${deckPath(deckId)}/edit?added=${encodeURIComponent(result.value.id)}`);
  });

  scope.post<{ Params: CardParams }>('/decks/:deckId/edit/cards/:cardId', OWNER_CARD_FORM, async (request, reply) => {
    const owner = viewerOf(request);
    const { deckId, cardId } = request.params;
    const { form, problem } = await withUploadedImages(ctx, owner, request.body, formOf(request.body));
    if (problem !== null) return refused(request, reply, deckId, { ok: false, problem, currentVersion: null }, { cardForm: form, cardId });
    const result = await saveCard(ctx, owner, { deckId, cardId, version: form.version ?? '', form, ownDeck: ownDeckOf(request) });
    if (!result.ok) return refused(request, reply, deckId, result, { cardForm: form, cardId });
    return seeOther(reply, `${deckPath(deckId)}/edit?card=${encodeURIComponent(cardId)}&saved=card`);
  });

  scope.post<{ Params: CardParams }>('/decks/:deckId/edit/cards/:cardId/move', OWNER_CARD_WRITE, async (request, reply) => {
    const owner = viewerOf(request);
    const form = formOf(request.body);
    const { deckId, cardId } = request.params;
    // The form counts from 1, as the list shows; the service from 0.
    const result = await moveCardTo(ctx, owner, { deckId, cardId, version: form.version ?? '', form: { to: String(Number(form.to) - 1) }, ownDeck: ownDeckOf(request) });
    if (!result.ok) return refused(request, reply, deckId, result, { cardId });
    return seeOther(reply, `${deckPath(deckId)}/edit?card=${encodeURIComponent(cardId)}&saved=moved`);
  });

  // `Delete card`: with the deck's version as If-Match (a concurrent change is shown, not overwritten).
  scope.post<{ Params: CardParams }>('/decks/:deckId/edit/cards/:cardId/delete', OWNER_CARD_WRITE, async (request, reply) => {
    const owner = viewerOf(request);
    const form = formOf(request.body);
    const { deckId, cardId } = request.params;
    try {
      await deleteDeckCard(ctx, owner, { deckId, cardId, ifMatch: form.version ?? '', ownDeck: ownDeckOf(request) });
    } catch (error) {
      if (!isAppError(error) || (error.code !== 'VERSION_MISMATCH' && error.code !== 'CARD_NOT_FOUND')) throw error;
      const currentVersion = error.code === 'VERSION_MISMATCH' ? (error.details as { currentVersion?: string } | undefined)?.currentVersion ?? null : null;
      return refused(request, reply, deckId, { ok: false, problem: error, currentVersion }, error.code === 'CARD_NOT_FOUND' ? {} : { cardId });
    }
    return seeOther(reply, `${deckPath(deckId)}/edit?saved=deleted`);
  });

  // The live preview: the card form rendered by the one renderer, as an HTML fragment; nothing is
  // saved. Only the deck's row is read to refuse another person's deck (the deck is not rendered).
  scope.post<{ Params: Params }>('/decks/:deckId/edit/preview', OWNER_FORM, async (request, reply) => {
    const { previewHtml } = await load();
    await ownDeckOrNotFound(ctx, viewerOf(request), { deckId: request.params.deckId });
    return reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-store').header('X-Robots-Tag', 'noindex')
      .send(previewHtml(formOf(request.body)));
  });
}
