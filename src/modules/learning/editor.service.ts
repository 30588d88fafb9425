// The owner editor's saves. A form's fields become the API's request shapes, validated by the
// same schemas (assertBody) and written by the same services, with the version the page was
// loaded at as If-Match. A problem the person can fix (a field refused, someone else's change in
// between) comes back as an outcome, not a throw, so the page can show it beside everything they
// typed; anything else (a deck that is not theirs, an outage) is thrown as usual.
import type { ServiceContext } from '../../context.ts';
import { AppError, ERROR_CATALOG, isAppError } from '../../errors.ts';
import { assertBody } from '../../validation.ts';
import type { Actor } from '../identity/principal.ts';
import { appendCards, moveCard, patchDeckCard } from '../cards/cards.service.ts';
import type { DeckRecord } from '../decks/decks.repository.ts';
import {
  AppendBodySchema, CardPatchSchema, DeckPatchSchema, type CardDto, type CardExtras, type CardInput, type DeckPatch,
} from '../decks/decks.schemas.ts';
import { patchDeck } from '../decks/decks.service.ts';

/** What the person typed, as form fields (every value a string; absent ones are ''). */
export type FormFields = Readonly<Record<string, string | undefined>>;

export type SaveOutcome<T> =
  | { ok: true; value: T }
  /** `problem` says what to fix; `currentVersion` is set when someone else changed the deck. */
  | { ok: false; problem: AppError; currentVersion: string | null };

async function outcome<T>(work: () => Promise<T>): Promise<SaveOutcome<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    // Shown on the form with what was typed (the catalog's shownOnForm); any other is the page's error.
    if (!isAppError(error) || ERROR_CATALOG[error.code].shownOnForm !== true) throw error;
    const current = error.code === 'VERSION_MISMATCH' ? (error.details as { currentVersion?: string } | undefined)?.currentVersion ?? null : null;
    return { ok: false, problem: error, currentVersion: current };
  }
}

function field(form: FormFields, name: string): string {
  return form[name] ?? '';
}

/** '' (a field left empty) is null: the API's "not set". */
function orNull(value: string): string | null {
  return value.trim() === '' ? null : value;
}

/** Browsers send line breaks as CRLF; cards are stored as typed elsewhere (LF). */
function text(value: string): string | null {
  return orNull(value.replace(/\r\n?/g, '\n'));
}

/** The deck form: Title, Description, Tags (comma-separated), Visibility, Language. */
export function deckPatchOf(form: FormFields): DeckPatch {
  return {
    title: field(form, 'title'),
    description: text(field(form, 'description')),
    tags: field(form, 'tags').split(','),
    visibility: field(form, 'visibility') as DeckPatch['visibility'],
    lang: field(form, 'lang').trim(),
  };
}

function media(form: FormFields, side: 'front' | 'back'): CardInput['frontMedia'] {
  const imageUrl = orNull(field(form, `${side}ImageUrl`).trim());
  const imageAlt = orNull(field(form, `${side}ImageAlt`));
  return imageUrl === null && imageAlt === null ? null : { imageUrl, imageAlt };
}

/**
 * The card form: Front, Back and their types, card type, one-sided, subject, topic, info, each
 * side's image and alt text. Extras the form does not show (direction, prompt, difficulty, tags,
 * template data) are kept from `current`.
 */
export function cardInputOf(form: FormFields, current?: CardDto): CardInput {
  const kept: Partial<CardExtras> = { ...current?.extras };
  delete kept.contentType;
  const extras: Record<string, unknown> = {
    ...kept,
    frontType: field(form, 'frontType') || undefined,
    backType: field(form, 'backType') || undefined,
    cardType: orNull(field(form, 'cardType')),
    subject: orNull(field(form, 'subject').trim()),
    topic: orNull(field(form, 'topic').trim()),
    info: text(field(form, 'info')),
  };
  const defined = Object.fromEntries(Object.entries(extras).filter(([, value]) => value !== undefined));
  return {
    front: text(field(form, 'front')),
    back: text(field(form, 'back')),
    oneSided: field(form, 'oneSided') === 'on',
    frontMedia: media(form, 'front'),
    backMedia: media(form, 'back'),
    extras: defined,
  };
}

export interface EditorWrite {
  deckId: string;
  /** The deck's version when the page was loaded: sent as If-Match. */
  version: string;
  form: FormFields;
  /** The deck as the page's admission read it, the owner's: the write does not read it again. */
  ownDeck?: DeckRecord | undefined;
}

export function saveDeckDetails(ctx: ServiceContext, owner: Actor, input: EditorWrite): Promise<SaveOutcome<null>> {
  return outcome(async () => {
    const patch = assertBody(DeckPatchSchema, deckPatchOf(input.form));
    await patchDeck(ctx, owner, { deckId: input.deckId, patch, ifMatch: input.version });
    return null;
  });
}

/**
 * The card form saved over the card: what the form holds is checked first (a refused field is
 * shown before anything is read), and the extras it does not show are kept from the card as the
 * write reads it, in its transaction (the card is read once).
 */
export function saveCard(ctx: ServiceContext, owner: Actor, input: EditorWrite & { cardId: string }): Promise<SaveOutcome<CardDto>> {
  return outcome(async () => {
    assertBody(CardPatchSchema, cardInputOf(input.form));
    return patchDeckCard(ctx, owner, {
      deckId: input.deckId, cardId: input.cardId, ifMatch: input.version, ownDeck: input.ownDeck,
      patch: (current) => assertBody(CardPatchSchema, cardInputOf(input.form, current)),
    });
  });
}

export function addCard(ctx: ServiceContext, owner: Actor, input: EditorWrite): Promise<SaveOutcome<CardDto>> {
  return outcome(async () => {
    const body = assertBody(AppendBodySchema, { cards: [cardInputOf(input.form)] });
    const result = await appendCards(ctx, owner, { deckId: input.deckId, cards: body.cards, ifMatch: input.version, ownDeck: input.ownDeck });
    return result.cards[0];
  });
}

export function moveCardTo(ctx: ServiceContext, owner: Actor, input: EditorWrite & { cardId: string }): Promise<SaveOutcome<{ order: number }>> {
  return outcome(async () => {
    const to = Number(field(input.form, 'to'));
    if (!Number.isInteger(to)) throw new AppError('BAD_REQUEST', 'The new position must be a whole number', { field: 'to' });
    return moveCard(ctx, owner, { deckId: input.deckId, cardId: input.cardId, to, ifMatch: input.version, ownDeck: input.ownDeck });
  });
}
