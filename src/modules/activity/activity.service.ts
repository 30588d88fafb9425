import type { ServiceContext } from '../../context.ts';
import { getToken } from '../tokens/tokens.service.ts';
import { listActivityOfToken, type ActivityEntry } from './activity.repository.ts';

export type { ActivityEntry } from './activity.repository.ts';

/** Operator: the calls made with a token, newest first (TOKEN_NOT_FOUND for an unknown id). */
export async function listTokenActivity(ctx: ServiceContext, input: { tokenId: string; limit: number }): Promise<ActivityEntry[]> {
  await getToken(ctx, { tokenId: input.tokenId });
  return listActivityOfToken(ctx.db, input.tokenId, input.limit);
}
