// The trash's shapes: a deck summary with when it was deleted and when it will be purged.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from '../../schemas/common.ts';
import { DeckSummarySchema } from './decks.schemas.ts';

export const TrashedDeckSchema = Type.Object({
  ...DeckSummarySchema.properties,
  deletedAt: DateTime,
  purgeAt: { ...DateTime, description: 'When the purge removes the deck for good (30 days after deletedAt)' },
}, { additionalProperties: false });

export const TrashListSchema = Type.Object({
  decks: Type.Array(TrashedDeckSchema),
  nextToken: Nullable(Type.String({ description: 'Opaque keyset cursor for the next page; null on the last page' })),
}, { additionalProperties: false });

export type TrashList = Static<typeof TrashListSchema>;
