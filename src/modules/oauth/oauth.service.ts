// What a person sees of OAuth: the scopes a client may ask for (in words, for the consent page),
// the apps they granted (settings), and Disconnect. Grants and tokens are oidc-provider's rows
// (oauth-adapter.ts); the record of a consent (client name, redirect host, when) is kept beside
// them under the grant's id, so a disconnect or a revoked grant takes it along.
import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../identity/principal.ts';
import { OAUTH_SCOPES, type OauthScope } from '../identity/scopes.ts';
import { isOauthScope, type AuthorizationScope } from './authorization-scopes.ts';
import { lastActivityOf, listActivityOfTokens, type ActivityEntry } from '../activity/activity.repository.ts';
import { destroyByGrant, findEntity, listGrantsOfAccount, purgeExpiredEntities, upsertEntity } from './oauth.repository.ts';

export const SCOPE_WORDS: Readonly<Record<AuthorizationScope, string>> = {
  openid: 'Know which Flashdeck account is yours (an account id, nothing else)',
  'decks:read': 'Read your decks and their cards',
  'decks:write': 'Create decks, and change your decks and cards',
  'reviews:read': 'See your review sessions',
  'reviews:write': 'Start, answer and complete review sessions',
};

const CONSENT_MODEL = 'FlashdeckConsent';

export interface ConsentRecord {
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectHost: string;
  readonly grantedAt: string;
}

export interface GrantedApp extends ConsentRecord {
  /** The newest grant of the app: the key of its settings page. */
  readonly grantId: string;
  /** Every live grant the person gave the app (one per consent), newest first. */
  readonly grantIds: readonly string[];
  readonly scopes: readonly OauthScope[];
  readonly lastUsedAt: string | null;
}

/** Kept when the person allows a client, beside the grant oidc-provider stores. */
export async function recordConsent(ctx: ServiceContext, actor: Actor, input: { grantId: string } & Omit<ConsentRecord, 'grantedAt'>): Promise<void> {
  const record: ConsentRecord = {
    clientId: input.clientId, clientName: input.clientName, redirectHost: input.redirectHost, grantedAt: ctx.clock.now().toISOString(),
  };
  await upsertEntity(ctx.db, {
    model: CONSENT_MODEL, id: input.grantId, payload: JSON.stringify(record), grantId: input.grantId, accountId: actor.userId, uid: null, expiresAt: null,
  });
}

function grantedScopes(payload: Record<string, unknown>): Set<OauthScope> {
  const resources = payload.resources;
  const scopes = new Set<OauthScope>();
  if (typeof resources === 'object' && resources !== null) {
    for (const value of Object.values(resources)) {
      if (typeof value !== 'string') continue;
      for (const scope of value.split(' ')) if (isOauthScope(scope)) scopes.add(scope);
    }
  }
  return scopes;
}

interface GrantOfApp extends ConsentRecord {
  readonly grantId: string;
  readonly scopes: Set<OauthScope>;
  readonly lastUsedAt: string | null;
}

/**
 * The apps the person granted access, newest consent first: one per client. Each consent makes a
 * grant of its own (a client on two devices keeps both working), and the page shows them as one
 * app with every scope any of them holds; Disconnect ends them all.
 */
export async function listGrantedApps(ctx: ServiceContext, actor: Actor): Promise<GrantedApp[]> {
  const grantRows = await listGrantsOfAccount(ctx.db, actor.userId, ctx.clock.now().toISOString());
  const grants = await Promise.all(grantRows.map(async ({ id, payload }): Promise<GrantOfApp> => {
    const consent = await findEntity(ctx.db, CONSENT_MODEL, id);
    // A grant whose consent record is missing (a failure between the two writes) is still listed,
    // so it can be disconnected.
    const record = consent === null ? {
      clientId: String(payload.clientId), clientName: String(payload.clientId), redirectHost: '',
      grantedAt: new Date(Number(payload.iat) * 1000).toISOString(),
    } : consent.payload as unknown as ConsentRecord;
    return { ...record, grantId: id, scopes: grantedScopes(payload), lastUsedAt: await lastActivityOf(ctx.db, id) };
  }));
  grants.sort((a, b) => b.grantedAt.localeCompare(a.grantedAt) || b.grantId.localeCompare(a.grantId));
  const byClient = new Map<string, GrantOfApp[]>();
  for (const grant of grants) {
    const same = byClient.get(grant.clientId);
    if (same === undefined) byClient.set(grant.clientId, [grant]);
    else same.push(grant);
  }
  return [...byClient.values()].map((same) => {
    const newest = same[0];
    const lastUsed = same.map((g) => g.lastUsedAt).filter((at) => at !== null).sort().at(-1) ?? null;
    return {
      clientId: newest.clientId, clientName: newest.clientName, redirectHost: newest.redirectHost, grantedAt: newest.grantedAt,
      grantId: newest.grantId, grantIds: same.map((g) => g.grantId),
      scopes: OAUTH_SCOPES.filter((s) => same.some((g) => g.scopes.has(s))), lastUsedAt: lastUsed,
    };
  });
}

/** One granted app of the person, by any of its grants (404 NOT_FOUND for another's or an unknown one). */
export async function getGrantedApp(ctx: ServiceContext, actor: Actor, input: { grantId: string }): Promise<GrantedApp> {
  const app = (await listGrantedApps(ctx, actor)).find((a) => a.grantIds.includes(input.grantId));
  if (app === undefined) throw new AppError('NOT_FOUND', 'No such app');
  return app;
}

/** The calls an app made with any of the person's grants, newest first (404 for anyone else's grant). */
export async function listAppActivity(ctx: ServiceContext, actor: Actor, input: { grantId: string; limit: number }): Promise<{ app: GrantedApp; activity: ActivityEntry[] }> {
  const app = await getGrantedApp(ctx, actor, input);
  return { app, activity: await listActivityOfTokens(ctx.db, app.grantIds, input.limit) };
}

/**
 * Disconnect: every grant the person gave the app, and every token and code of each, are deleted;
 * the API refuses its access tokens once each instance re-reads them (within TOKEN_CACHE_MS,
 * DECISIONS: 5 seconds).
 */
export async function disconnectApp(ctx: ServiceContext, actor: Actor, input: { grantId: string }): Promise<void> {
  const app = await getGrantedApp(ctx, actor, input);
  for (const grantId of app.grantIds) await destroyByGrant(ctx.db, grantId, null);
}

export async function purgeExpiredOauth(ctx: ServiceContext): Promise<void> {
  await purgeExpiredEntities(ctx.db, ctx.clock.now());
}
