import { Type, type Static } from 'typebox';
import { IMAGE_TYPES } from './image-probe.ts';

export const StoredMediaSchema = Type.Object({
  id: Type.String({ description: '`med_` and the SHA-256 of the bytes: the same image uploaded twice has the same id' }),
  url: Type.String({ description: 'Root-relative `/media/<sha256>.<ext>`: usable as any `imageUrl` or markdown image' }),
  contentType: Type.Enum(Object.keys(IMAGE_TYPES) as (keyof typeof IMAGE_TYPES)[], { description: 'Read from the bytes' }),
  bytes: Type.Integer({ minimum: 1 }),
  width: Type.Integer({ minimum: 1 }),
  height: Type.Integer({ minimum: 1 }),
}, { additionalProperties: false });

export type StoredMedia = Static<typeof StoredMediaSchema>;
