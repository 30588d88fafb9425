// Shapes of search (GET /search, q and tag on GET /decks) and of public decks (GET /public/decks...).
import { Type, type Static } from 'typebox';
import { Nullable } from '../../schemas/common.ts';
import { DeckDetailSchema, DeckSummarySchema } from './decks.schemas.ts';

export const SEARCH_QUERY_MAX = 200;

export const SearchQuery = Type.String({
  minLength: 1, maxLength: SEARCH_QUERY_MAX,
  description: 'Words to find (1 to 200 characters); each word must appear, case and accents ignored. Plain text: quotes, operators and punctuation are not syntax.',
});
export const TagQuery = Type.String({ minLength: 1, maxLength: 40, description: 'Only decks with this tag (exact, case-insensitive)' });
const NextToken = Nullable(Type.String({ description: 'Opaque continuation token for the next page; null on the last page' }));

export const CardHitSchema = Type.Object({
  deckId: Type.String(),
  deckTitle: Type.String(),
  cardId: Type.String(),
  order: Type.Integer({ minimum: 0 }),
  front: Nullable(Type.String()),
  back: Nullable(Type.String()),
}, { additionalProperties: false });

export const SearchResultsSchema = Type.Object({
  results: Type.Array(CardHitSchema),
  nextToken: NextToken,
}, { additionalProperties: false });

const { editUrl: _summaryEditUrl, ...publicSummaryFields } = DeckSummarySchema.properties;
const { editUrl: _detailEditUrl, ...publicDetailFields } = DeckDetailSchema.properties;

export const PublicDeckSummarySchema = Type.Object(publicSummaryFields, { additionalProperties: false, description: 'A public deck: no owner details, no editUrl' });
export const PublicDeckListSchema = Type.Object({
  decks: Type.Array(PublicDeckSummarySchema),
  nextToken: NextToken,
}, { additionalProperties: false });
export const PublicDeckSchema = Type.Object(publicDetailFields, { additionalProperties: false, description: 'A public or unlisted deck with its cards' });

export const CopiedDeckSchema = Type.Object({
  ...DeckDetailSchema.properties,
  copiedFrom: Type.String({ description: 'The id of the public deck this is a copy of' }),
  idempotencyKey: Type.Optional(Type.String()),
}, { additionalProperties: false });

export type CardHitDto = Static<typeof CardHitSchema>;
export type SearchResults = Static<typeof SearchResultsSchema>;
export type PublicDeckSummary = Static<typeof PublicDeckSummarySchema>;
export type PublicDeckList = Static<typeof PublicDeckListSchema>;
export type PublicDeck = Static<typeof PublicDeckSchema>;
export type CopiedDeck = Static<typeof CopiedDeckSchema>;
