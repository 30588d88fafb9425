// One schema per shape: used to validate requests, to type the code, and to write OpenAPI.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from '../../schemas/common.ts';
import { addBodyKeyword, type JsonLimits } from '../../validation.ts';
import { normaliseTags } from './deck-fields.ts';

export const MAX_CARDS_PER_DECK = 250;

export const VISIBILITIES = ['public', 'unlisted', 'private'] as const;
export const CONTENT_TYPES = ['text', 'markdown', 'html', 'latex'] as const;
export const CARD_TYPES = ['basic', 'formula', 'definition', 'name-formula', 'code-behavior', 'comparison', 'procedure', 'explanation', 'pitfall'] as const;
export const RETIRED_CARD_TYPES = { 'image-question': 'basic', 'image-explanation': 'definition' } as const;
export const CARD_DIRECTIONS = ['name->formula', 'formula->name'] as const;
export const CARD_DIFFICULTIES = ['easy', 'medium', 'hard'] as const;
export const TEMPLATES = { default: 'basic', math: 'formula', code: 'code-behavior' } as const;

export type Visibility = (typeof VISIBILITIES)[number];
export type ContentType = (typeof CONTENT_TYPES)[number];
export type CardType = (typeof CARD_TYPES)[number];

export const VisibilitySchema = Type.Enum([...VISIBILITIES]);
const ContentTypeSchema = Type.Enum([...CONTENT_TYPES]);

// https absolute URLs or root-relative paths; http and other schemes rejected. Root-relative means
// "/" then a character that is neither "/" nor a backslash: browsers read "/\x" like "//x", another host.
// No whitespace or control characters anywhere (URL parsers drop tabs and line breaks, so "/\t/x"
// is "//x" too). Each part is unambiguous, so matching is linear in the length.
const URL_CHAR = '[^\\s\\x00-\\x1f\\x7f]';
const HOST_START = '[^\\s\\x00-\\x1f\\x7f/\\\\?#]';
const HTTPS_URL = `[Hh][Tt][Tt][Pp][Ss]://${HOST_START}${URL_CHAR}*`;
const ROOT_RELATIVE = `/(?:[^\\s\\x00-\\x1f\\x7f/\\\\]${URL_CHAR}*)?`;
export const IMAGE_URL_PATTERN = `^(?:${HTTPS_URL}|${ROOT_RELATIVE})$`;
export const HTTPS_URL_PATTERN = `^${HTTPS_URL}$`;

/** extras.templateData is free-form: bounded, so that every walk over it is. */
export const TEMPLATE_DATA_LIMITS: JsonLimits = { maxDepth: 16, maxMembers: 256, maxBytes: 16_384 };

export const SideMediaSchema = Nullable(Type.Object({
  imageUrl: Type.Optional(Nullable(Type.String({
    maxLength: 2048,
    pattern: IMAGE_URL_PATTERN,
    description: 'An https:// URL or a root-relative path: `/` followed by a character other than `/` or `\\` (`//host` and `/\\host` name another host). No whitespace or control characters. http://, javascript:, data:, vbscript:, file: are rejected with SCHEMA_INVALID.',
  }))),
  imageAlt: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
}, { additionalProperties: false }));

const extrasFields = {
  info: Type.Optional(Nullable(Type.String({ maxLength: 1000, description: 'Markdown shown in a detail modal' }))),
  frontType: Type.Optional(ContentTypeSchema),
  backType: Type.Optional(ContentTypeSchema),
  contentType: Type.Optional(ContentTypeSchema),
  subject: Type.Optional(Nullable(Type.String({ maxLength: 60 }))),
  topic: Type.Optional(Nullable(Type.String({ maxLength: 80 }))),
  direction: Type.Optional(Nullable(Type.Enum([...CARD_DIRECTIONS]))),
  prompt: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  difficulty: Type.Optional(Nullable(Type.Enum([...CARD_DIFFICULTIES]))),
  tags: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 30 }), { maxItems: 10 }))),
  templateData: Type.Optional(Nullable(Type.Object({}, {
    additionalProperties: true,
    'x-json-limits': TEMPLATE_DATA_LIMITS,
    description: `Free-form JSON object for templates, stored with its keys sorted. At most ${TEMPLATE_DATA_LIMITS.maxDepth} levels deep (the object itself is the first), ${TEMPLATE_DATA_LIMITS.maxMembers} members (object properties plus array items, at every depth) and ${TEMPLATE_DATA_LIMITS.maxBytes} bytes as compact UTF-8 JSON; beyond any of these, SCHEMA_INVALID.`,
  }))),
};

export const CardExtrasInputSchema = Type.Object({
  ...extrasFields,
  cardType: Type.Optional(Nullable(Type.Enum([...CARD_TYPES, ...Object.keys(RETIRED_CARD_TYPES)], {
    description: 'Retired `image-question` and `image-explanation` are accepted and normalised to `basic` and `definition`.',
  }))),
  template: Type.Optional(Nullable(Type.Enum(Object.keys(TEMPLATES), {
    deprecated: true,
    description: 'Deprecated: normalised to cardType (default->basic, math->formula, code->code-behavior) with warning TEMPLATE_DEPRECATED; never returned.',
  }))),
}, { additionalProperties: false });

export const CardExtrasSchema = Type.Object({
  ...extrasFields,
  frontType: ContentTypeSchema,
  backType: ContentTypeSchema,
  cardType: Type.Optional(Nullable(Type.Enum([...CARD_TYPES]))),
}, { additionalProperties: false, description: 'frontType and backType always come back resolved from the card type defaults.' });

const side = (description: string) => Nullable(Type.String({ maxLength: 4000, description }));

export const CardInputSchema = Type.Object({
  front: Type.Optional(side('Front side; at least one of front or back must be a non-empty string')),
  back: Type.Optional(side('Back side')),
  // Default false; not a schema default, which generators would make a required request field.
  oneSided: Type.Optional(Type.Boolean({ description: 'Default false' })),
  frontMedia: Type.Optional(SideMediaSchema),
  backMedia: Type.Optional(SideMediaSchema),
  extras: Type.Optional(CardExtrasInputSchema),
}, { additionalProperties: false });

export const CardPatchSchema = Type.Object({
  front: Type.Optional(side('Front side')),
  back: Type.Optional(side('Back side')),
  oneSided: Type.Optional(Type.Boolean()),
  frontMedia: Type.Optional(SideMediaSchema),
  backMedia: Type.Optional(SideMediaSchema),
  extras: Type.Optional(CardExtrasInputSchema),
}, { additionalProperties: false, minProperties: 1, description: 'At least one property. `extras` replaces the whole extras object.' });

export const BulkCardPatchSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, description: 'A card of this deck (`crd_...`); a card of another deck is 404 CARD_NOT_FOUND' }),
  front: Type.Optional(side('Front side')),
  back: Type.Optional(side('Back side')),
  oneSided: Type.Optional(Type.Boolean()),
  frontMedia: Type.Optional(SideMediaSchema),
  backMedia: Type.Optional(SideMediaSchema),
  extras: Type.Optional(CardExtrasInputSchema),
}, { additionalProperties: false, minProperties: 2, description: 'A card id and at least one card field, as in PATCH .../cards/{cardId}' });

export const CardsPatchBodySchema = Type.Object({
  cards: Type.Array(BulkCardPatchSchema, { minItems: 1, maxItems: MAX_CARDS_PER_DECK, description: 'Each card at most once' }),
}, { additionalProperties: false });

export const MoveCardBodySchema = Type.Object({
  order: Type.Integer({ minimum: 0, description: "The card's new 0-based position: 0 to cardCount - 1 (beyond the last, SCHEMA_INVALID)" }),
}, { additionalProperties: false });

export const CardDtoSchema = Type.Object({
  id: Type.String(),
  order: Type.Integer({ minimum: 0, description: '0-based position in the deck' }),
  front: Nullable(Type.String()),
  back: Nullable(Type.String()),
  oneSided: Type.Boolean(),
  frontMedia: Type.Optional(SideMediaSchema),
  backMedia: Type.Optional(SideMediaSchema),
  extras: Type.Optional(CardExtrasSchema),
}, { additionalProperties: false });

/** Deck tags: the limits hold for the list once normalised (trimmed, de-duplicated), not as sent. */
export const DECK_TAGS = { maxTags: 20, maxLength: 40, maxSent: 200 } as const;

const codePoints = (text: string) => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

// "x-deck-tags": normalises the list as the service will (deck-fields.ts), then checks the limits.
addBodyKeyword({
  keyword: 'x-deck-tags',
  type: 'array',
  schemaType: 'boolean',
  errors: true,
  validate: function checkDeckTags(_enabled: boolean, data: unknown[], _parent?: unknown, where?: { instancePath: string }): boolean {
    const errors: { instancePath?: string; keyword: string; message: string; params: object }[] = [];
    if (data.every((t) => typeof t === 'string')) {
      const tags = data;
      const kept = normaliseTags(tags);
      tags.forEach((tag, i) => {
        if (codePoints(tag.trim()) > DECK_TAGS.maxLength) {
          errors.push({ instancePath: `${where?.instancePath ?? ''}/${i}`, keyword: 'maxLength', params: { limit: DECK_TAGS.maxLength }, message: `must NOT have more than ${DECK_TAGS.maxLength} characters once trimmed` });
        }
      });
      if (kept.length > DECK_TAGS.maxTags) {
        errors.push({ keyword: 'maxItems', params: { limit: DECK_TAGS.maxTags }, message: `must NOT have more than ${DECK_TAGS.maxTags} tags once trimmed, empty ones dropped and case-insensitive duplicates removed` });
      }
    }
    (checkDeckTags as { errors?: unknown[] }).errors = errors;
    return errors.length === 0;
  },
});

const tagsSchema = Type.Array(Type.String(), {
  maxItems: DECK_TAGS.maxSent,
  'x-deck-tags': true,
  description: `Trimmed, empty ones dropped, duplicates (case-insensitive) removed keeping the first spelling; what remains must be at most ${DECK_TAGS.maxTags} tags of at most ${DECK_TAGS.maxLength} characters (SCHEMA_INVALID otherwise). Up to ${DECK_TAGS.maxSent} entries may be sent.`,
});
const titleSchema = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const langSchema = Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$', description: 'Language code such as en, fr, pl, pt-BR' });
const thumbnailSchema = Nullable(Type.String({ maxLength: 2048, format: 'uri', pattern: HTTPS_URL_PATTERN, description: 'https URL only, without whitespace or control characters' }));

export const DeckMetaInputSchema = Type.Object({
  title: titleSchema,
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  lang: Type.Optional(langSchema),
  visibility: Type.Optional(VisibilitySchema),
  tags: Type.Optional(tagsSchema),
  thumbnail: Type.Optional(thumbnailSchema),
}, { additionalProperties: false });

export const DeckPatchSchema = Type.Object({
  title: Type.Optional(titleSchema),
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  lang: Type.Optional(langSchema),
  visibility: Type.Optional(VisibilitySchema),
  tags: Type.Optional(tagsSchema),
  thumbnail: Type.Optional(thumbnailSchema),
}, { additionalProperties: false, minProperties: 1, description: 'Metadata only, at least one property; cards are not editable through it.' });

const summaryFields = {
  id: Type.String(),
  title: Type.String(),
  visibility: VisibilitySchema,
  cardCount: Type.Integer({ minimum: 0 }),
  version: Nullable(Type.String({ format: 'date-time', description: "Optimistic-concurrency token: the deck's last-update time. Send it as If-Match." })),
  // Optional in the spec, but always returned: required here, so generated clients need no checks.
  description: Nullable(Type.String()),
  lang: Nullable(Type.String()),
  tags: Type.Array(Type.String()),
  thumbnail: Nullable(Type.String({ format: 'uri' })),
  previewUrl: Type.String({ format: 'uri', description: 'Learning view' }),
  editUrl: Type.String({ format: 'uri', description: 'Owner editor' }),
  updatedAt: Nullable(DateTime),
  createdAt: Nullable(DateTime),
};

export const DeckSummarySchema = Type.Object(summaryFields, { additionalProperties: false });

export const DeckDetailSchema = Type.Object({
  ...summaryFields,
  cards: Type.Array(CardDtoSchema, { maxItems: MAX_CARDS_PER_DECK, description: 'The complete card set in order' }),
  nextCardsToken: Type.Optional(Type.String({ description: 'Never set: every card is always returned' })),
}, { additionalProperties: false });

export const DeckListSchema = Type.Object({
  items: Type.Array(DeckSummarySchema),
  nextToken: Nullable(Type.String({ description: 'Opaque keyset cursor for the next page; null on the last page' })),
}, { additionalProperties: false });

export const CapacitySchema = Type.Object({
  can_create: Type.Boolean(),
  current_decks: Type.Integer({ minimum: 0 }),
  deck_limit: Nullable(Type.Integer({ minimum: 0, description: 'null means no limit' })),
}, { additionalProperties: false });

export const WarningSchema = Type.Object({
  code: Type.String({ description: 'CONTENT_TYPE_MISMATCH_TEXT_LOOKS_RICH, CARD_TYPE_FORMULA_FRONT_NOT_MATH, LANG_DEFAULTED, FRONT_SECTION_MISSING, TEMPLATE_DEPRECATED' }),
  message: Type.String(),
  cardIndex: Type.Optional(Type.Integer({ minimum: 0 })),
}, { additionalProperties: false });

export const ImportBodySchema = Type.Object({
  deck: DeckMetaInputSchema,
  cards: Type.Array(CardInputSchema, { minItems: 1, maxItems: MAX_CARDS_PER_DECK }),
}, { additionalProperties: false });

export const ImportResultSchema = Type.Object({
  deckId: Type.String(),
  cardCount: Type.Integer({ minimum: 0 }),
  mode: Type.Enum(['create', 'update']),
  previewUrl: Type.String({ format: 'uri' }),
  editUrl: Type.String({ format: 'uri' }),
  visibility: VisibilitySchema,
  title: Type.Optional(Type.String()),
  version: Type.Optional(Nullable(DateTime)),
  idempotencyKey: Type.Optional(Type.String()),
  warnings: Type.Optional(Type.Array(WarningSchema)),
}, { additionalProperties: false });

export const AppendBodySchema = Type.Object({
  cards: Type.Array(CardInputSchema, { minItems: 1, maxItems: MAX_CARDS_PER_DECK }),
}, { additionalProperties: false });

export const AppendCardsResultSchema = Type.Object({
  deckId: Type.String(),
  addedCount: Type.Integer({ minimum: 1 }),
  cardCount: Type.Integer({ minimum: 0 }),
  version: Nullable(DateTime),
  cards: Type.Array(CardDtoSchema),
  idempotencyKey: Type.Optional(Type.String()),
}, { additionalProperties: false });

export const DeleteCardResultSchema = Type.Object({
  deckId: Type.String(),
  cardCount: Type.Integer({ minimum: 0 }),
  version: Nullable(DateTime),
}, { additionalProperties: false, description: 'The deck after the delete; later cards moved up one' });

export const MoveCardResultSchema = Type.Object({
  deckId: Type.String(),
  version: Nullable(DateTime),
  card: CardDtoSchema,
}, { additionalProperties: false, description: 'The moved card at its new `order`; the other orders stay contiguous' });

export const CardsPatchResultSchema = Type.Object({
  deckId: Type.String(),
  version: Nullable(DateTime),
  cards: Type.Array(CardDtoSchema, { description: 'Every card the body named, as it now is, in the body\'s order' }),
  idempotencyKey: Type.Optional(Type.String()),
}, { additionalProperties: false });

export type SideMedia = Static<typeof SideMediaSchema>;
export type CardExtrasInput = Static<typeof CardExtrasInputSchema>;
export type CardExtras = Static<typeof CardExtrasSchema>;
export type CardInput = Static<typeof CardInputSchema>;
export type CardPatch = Static<typeof CardPatchSchema>;
export type CardDto = Static<typeof CardDtoSchema>;
export type DeckMetaInput = Static<typeof DeckMetaInputSchema>;
export type DeckPatch = Static<typeof DeckPatchSchema>;
export type DeckSummary = Static<typeof DeckSummarySchema>;
export type DeckDetail = Static<typeof DeckDetailSchema>;
export type DeckList = Static<typeof DeckListSchema>;
export type Capacity = Static<typeof CapacitySchema>;
export type ImportBody = Static<typeof ImportBodySchema>;
export type ImportResult = Static<typeof ImportResultSchema>;
export type ImportWarning = Static<typeof WarningSchema>;
export type AppendCardsResult = Static<typeof AppendCardsResultSchema>;
export type BulkCardPatch = Static<typeof BulkCardPatchSchema>;
export type CardsPatchBody = Static<typeof CardsPatchBodySchema>;
export type DeleteCardResult = Static<typeof DeleteCardResultSchema>;
export type MoveCardResult = Static<typeof MoveCardResultSchema>;
export type CardsPatchResult = Static<typeof CardsPatchResultSchema>;
