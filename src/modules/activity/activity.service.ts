import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { continuationOf, keysetPage } from '../../keyset-cursor.ts';
import type { Actor } from '../identity/principal.ts';
import { getToken, getTokenView } from '../tokens/tokens.service.ts';
import { listActivityOfToken, pageActivityOfToken, type ActivityEntry, type ActivityOutcome } from './activity.repository.ts';

export type { ActivityEntry, ActivityOutcome } from './activity.repository.ts';

export const ACTIVITY_OUTCOMES: readonly ActivityOutcome[] = ['2xx', '4xx', '5xx', '429'];

/** Operator: the calls made with a token, newest first (TOKEN_NOT_FOUND for an unknown id). */
export async function listTokenActivity(ctx: ServiceContext, input: { tokenId: string; limit: number }): Promise<ActivityEntry[]> {
  await getToken(ctx, { tokenId: input.tokenId });
  return listActivityOfToken(ctx.db, input.tokenId, input.limit);
}

export interface ActivityPage {
  items: ActivityEntry[];
  /** The next (older) page's token, or null on the last page. */
  nextToken: string | null;
}

/**
 * The calls made with one of the actor's tokens (TOKEN_NOT_FOUND for anyone else's), newest first,
 * in keyset pages like GET /decks: `token` continues after the previous page's last entry, whatever
 * was recorded since. `outcome` keeps 2xx, 4xx (429 excepted), 5xx or 429 calls only.
 */
export async function listOwnTokenActivity(
  ctx: ServiceContext, actor: Actor,
  input: { tokenId: string; limit: number; token?: string | undefined; outcome?: string | undefined },
): Promise<ActivityPage> {
  const outcome = input.outcome === undefined || input.outcome === '' ? null : input.outcome;
  if (outcome !== null && !(ACTIVITY_OUTCOMES as readonly string[]).includes(outcome)) {
    throw new AppError('BAD_REQUEST', `outcome must be one of ${ACTIVITY_OUTCOMES.join(', ')}`, { field: 'outcome' });
  }
  await getTokenView(ctx, actor, { tokenId: input.tokenId });
  const list = `${input.tokenId}:${outcome ?? ''}`;
  const position = continuationOf(ctx.secrets.cursorKey, input.token, list, ['string', 'number']);
  const after = position === null ? null : { at: position[0] as string, id: position[1] as number };
  const rows = await pageActivityOfToken(ctx.db, input.tokenId, outcome as ActivityOutcome | null, input.limit + 1, after);
  const page = keysetPage(ctx.secrets.cursorKey, rows, input.limit, list, (row) => [row.entry.at, row.id]);
  return { items: page.rows.map((r) => r.entry), nextToken: page.nextToken };
}
