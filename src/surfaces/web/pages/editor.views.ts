// What the owner editor's template is given (views/learning/edit.eta): plain data built from the
// services' results. Card HTML comes from the one renderer and is the only unescaped content.
// A deck of 250 cards is one compact list (a link a card, searchable) beside one card's form:
// the new-card form unless a card is chosen, so `Front` comes first after the site's links.
import { CARD_TYPES, CONTENT_TYPES, type CardDto } from '../../../modules/decks/decks.schemas.ts';
import { cardInputOf, type FormFields } from '../../../modules/learning/editor.service.ts';
import type { DeckPage } from '../../../modules/learning/learning.service.ts';
import { searchCards } from '../../../modules/learning/card-search.ts';
import { renderCard, sideHtml, type RenderedCard } from '../../../modules/rendering/card-renderer.ts';
import { deckPath } from './deck-paths.ts';
import { VISIBILITY_LABELS } from './learning.views.ts';

const CONTENT_TYPE_OPTIONS = CONTENT_TYPES.map((value) => ({ value, label: value }));
const CARD_TYPE_OPTIONS = [{ value: '', label: '(none)' }, ...CARD_TYPES.map((value) => ({ value, label: value }))];
const VISIBILITY_OPTIONS = (['private', 'unlisted', 'public'] as const).map((value) => ({ value, label: VISIBILITY_LABELS[value] }));

/** A stored card as the editor's form fields. */
export function cardFields(card: CardDto | null): Record<string, string> {
  const extras = card?.extras;
  return {
    front: card?.front ?? '',
    back: card?.back ?? '',
    frontType: extras?.frontType ?? 'markdown',
    backType: extras?.backType ?? 'markdown',
    cardType: extras?.cardType ?? '',
    oneSided: card?.oneSided === true ? 'on' : '',
    subject: extras?.subject ?? '',
    topic: extras?.topic ?? '',
    info: extras?.info ?? '',
    frontImageUrl: card?.frontMedia?.imageUrl ?? '',
    frontImageAlt: card?.frontMedia?.imageAlt ?? '',
    backImageUrl: card?.backMedia?.imageUrl ?? '',
    backImageAlt: card?.backMedia?.imageAlt ?? '',
  };
}

/** The preview of what the form holds, by the one renderer (never saved; nothing is validated but the types). */
export function previewHtml(form: FormFields, id = 'preview'): string {
  const input = cardInputOf(form);
  const frontType = CONTENT_TYPES.find((t) => t === form.frontType) ?? 'markdown';
  const backType = CONTENT_TYPES.find((t) => t === form.backType) ?? 'markdown';
  const card: CardDto = {
    id, order: 0, front: input.front ?? null, back: input.back ?? null, oneSided: input.oneSided ?? false,
    frontMedia: input.frontMedia ?? null, backMedia: input.backMedia ?? null,
    extras: { frontType, backType, subject: input.extras?.subject ?? null, topic: input.extras?.topic ?? null, info: input.extras?.info ?? null },
  };
  return renderedPreview(renderCard(card));
}

export function renderedPreview(card: RenderedCard): string {
  const info = card.info === null ? '' : `<div class="card-content card-info">${card.info}</div>`;
  return `${card.chrome}${sideHtml(card, 'front')}${sideHtml(card, 'back')}${info}`;
}

export interface EditorProblem {
  heading: string;
  message: string;
}

export interface EditorInput {
  page: DeckPage;
  cards: readonly CardDto[];
  /** The card being edited (null: the new-card form). */
  cardId: string | null;
  /** The card search's query ('' for none). */
  query?: string;
  /** What the person typed, when a save was refused; else the stored values. */
  deckForm?: FormFields;
  cardForm?: FormFields;
  problem?: EditorProblem;
  notice?: string;
  /** A card just added: named (and linked) in the notice above the next new card's form. */
  added?: string;
  /** The version a repeated save is checked against (the current one after a conflict). */
  version?: string;
  /** The card as now saved, shown beside what was typed after a conflict. */
  saved?: string;
  /** A save of the deck details met a concurrent change: the details as now saved are shown too. */
  deckConflict?: boolean;
}

/** The editor's address with a card chosen and the search kept. */
function editorUrl(deckId: string, params: { card?: string; q?: string }): string {
  const query = new URLSearchParams();
  if (params.card !== undefined) query.set('card', params.card);
  if (params.q !== undefined && params.q !== '') query.set('q', params.q);
  const text = query.toString();
  return `${deckPath(deckId)}/edit${text === '' ? '' : `?${text}`}`;
}

export function cardListView(deckId: string, cards: readonly CardDto[], query: string, currentId: string | null) {
  const numbered = cards.map((card, i) => ({ card, number: i + 1 }));
  const shown = query.trim() === '' ? numbered : searchCards(numbered.map((n) => n.card), query).map((card) => numbered[card.order]);
  return {
    query,
    total: cards.length,
    matches: shown.length,
    items: shown.map(({ card, number }) => ({
      number,
      summary: summaryOf(card),
      editUrl: editorUrl(deckId, { card: card.id, q: query }),
      current: card.id === currentId,
    })),
  };
}

export function editorView(input: EditorInput) {
  const { page, cards } = input;
  const { deck } = page;
  const editBase = `${deckPath(deck.id)}/edit`;
  const query = input.query ?? '';
  const editing = input.cardId === null ? null : cards.find((c) => c.id === input.cardId) ?? null;
  const values = input.cardForm !== undefined ? { ...cardFields(null), ...stringsOf(input.cardForm) } : cardFields(editing);
  const rendered = editing === null ? undefined : page.rendered.cards.find((c) => c.id === editing.id);
  const preview = input.cardForm !== undefined || rendered === undefined ? previewHtml(values) : renderedPreview(rendered);
  const stored = {
    title: deck.title, description: deck.description ?? '', tags: deck.tags.join(', '), visibility: deck.visibility, lang: deck.lang,
  };
  const deckForm = input.deckForm !== undefined ? stringsOf(input.deckForm) : stored;
  const added = input.added === undefined ? null : cards.find((c) => c.id === input.added) ?? null;
  return {
    title: deck.title,
    deckId: deck.id,
    learnUrl: deckPath(deck.id),
    version: input.version ?? deck.updatedAt,
    problem: input.problem ?? null,
    notice: added === null ? input.notice ?? null : `Card ${added.order + 1} added.`,
    addedLink: added === null ? null : { url: editorUrl(deck.id, { card: added.id }), text: `Edit card ${added.order + 1}` },
    deckAction: `${editBase}/deck`,
    deck: deckForm,
    visibilities: VISIBILITY_OPTIONS,
    contentTypes: CONTENT_TYPE_OPTIONS,
    cardTypes: CARD_TYPE_OPTIONS,
    previewUrl: `${editBase}/preview`,
    editUrl: editBase,
    deleteDeckUrl: `${deckPath(deck.id)}/delete`,
    newCardUrl: editorUrl(deck.id, { q: query }),
    searchUrl: editBase,
    list: cardListView(deck.id, cards, query, input.cardId),
    exports: [
      { url: `${deckPath(deck.id)}/export/md`, text: 'Markdown (.md)' },
      { url: `${deckPath(deck.id)}/export/csv`, text: 'CSV (.csv)' },
      { url: `${deckPath(deck.id)}/export/apkg`, text: 'Anki package (.apkg)' },
    ],
    form: {
      cardId: editing?.id ?? null,
      number: editing === null ? null : editing.order + 1,
      heading: editing === null ? 'New card' : `Card ${editing.order + 1}`,
      submit: editing === null ? 'Add card' : 'Save',
      action: editing === null ? `${editBase}/cards` : `${editBase}/cards/${encodeURIComponent(editing.id)}`,
      moveAction: editing === null ? null : `${editBase}/cards/${encodeURIComponent(editing.id)}/move`,
      deleteAction: editing === null ? null : `${editBase}/cards/${encodeURIComponent(editing.id)}/delete`,
      // After an add, the next card is written at once.
      autofocus: added !== null,
      values,
      preview,
    },
    saved: input.saved ?? null,
    savedDeck: input.deckConflict === true
      ? { ...stored, visibility: VISIBILITY_LABELS[deck.visibility] }
      : null,
  };
}

function stringsOf(form: FormFields): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(form)) if (typeof value === 'string') out[key] = value;
  return out;
}

/** A card's one-line label in the list: the start of its front (or back), as plain text. */
function summaryOf(card: CardDto): string {
  const source = (card.front ?? card.back ?? '').replace(/\s+/g, ' ').trim();
  return source.length > 60 ? `${source.slice(0, 59)}…` : source || '(image only)';
}
