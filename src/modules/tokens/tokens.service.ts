// Personal access tokens: made for a user (by the CLI today, by the settings pages next), listed,
// revoked. Their verification is pat-verifier.ts.
import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { continuationOf, keysetPage } from '../../keyset-cursor.ts';
import type { Actor } from '../identity/principal.ts';
import { isScope, TOKEN_SCOPES, type Scope } from '../identity/scopes.ts';
import { generatePat, hashToken } from './token-format.ts';
import {
  findTokenById, insertToken, lastUseOfToken, listTokensOfUser, markTokenRevoked, pagePatsOfUserWithLastUse, type TokenRecord,
} from './tokens.repository.ts';

/** Expiry choices offered to users, in days. */
export const TOKEN_EXPIRY_DAYS = [7, 30, 90, 365] as const;
export const DEFAULT_TOKEN_EXPIRY_DAYS = 90;

export interface TokenSummary {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

function summary(t: TokenRecord): TokenSummary {
  return { id: t.id, name: t.name, prefix: t.prefix, scopes: t.scopes, createdAt: t.createdAt, expiresAt: t.expiresAt, revokedAt: t.revokedAt };
}

export interface CreateTokenInput {
  name: string;
  scopes: readonly string[];
  expiresDays?: number;
}

function invalid(field: string, message: string): AppError {
  return new AppError('INVALID_INPUT', message, { field });
}

/** A new token of the actor's; the token itself is in the result only, never stored. */
export async function createToken(ctx: ServiceContext, actor: Actor, input: CreateTokenInput): Promise<{ token: string; summary: TokenSummary }> {
  const name = input.name.trim();
  if (name === '' || name.length > 100) throw invalid('name', 'the token name must be 1 to 100 characters');
  const scopes = [...new Set(input.scopes.map((s) => s.trim()).filter((s) => s !== ''))];
  if (scopes.length === 0) throw invalid('scopes', 'at least one scope is required');
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) throw invalid('scopes', `unknown scope: ${unknown.join(', ')} (the scopes are ${TOKEN_SCOPES.join(', ')})`);
  const days = input.expiresDays ?? DEFAULT_TOKEN_EXPIRY_DAYS;
  if (!(TOKEN_EXPIRY_DAYS as readonly number[]).includes(days)) {
    throw invalid('expiresDays', `expiry must be one of ${TOKEN_EXPIRY_DAYS.join(', ')} days`);
  }
  const now = ctx.clock.now();
  const { token, prefix } = generatePat();
  const record: TokenRecord = {
    id: newId('tok'),
    userId: actor.userId,
    kind: 'pat',
    name,
    prefix,
    hash: hashToken(ctx.secrets.tokenHashKey, token),
    scopes: scopes as Scope[],
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + days * 86_400_000).toISOString(),
    revokedAt: null,
  };
  await insertToken(ctx.db, record);
  return { token, summary: summary(record) };
}

/** The actor's tokens, newest first. */
export async function listTokens(ctx: ServiceContext, actor: Actor): Promise<TokenSummary[]> {
  return (await listTokensOfUser(ctx.db, actor.userId)).map(summary);
}

/** Operator: any token by id, or TOKEN_NOT_FOUND. */
export async function getToken(ctx: ServiceContext, input: { tokenId: string }): Promise<TokenSummary> {
  const token = await findTokenById(ctx.db, input.tokenId);
  if (!token) throw new AppError('TOKEN_NOT_FOUND', `no token with id ${input.tokenId}`);
  return summary(token);
}

export type TokenStatus = 'active' | 'revoked' | 'expired';

/** The one rule for a token's status (the CLI's list and the settings pages show it). */
export function tokenStatus(token: Pick<TokenSummary, 'revokedAt' | 'expiresAt'>, now: Date): TokenStatus {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && Date.parse(token.expiresAt) <= now.getTime()) return 'expired';
  return 'active';
}

/** A token as its owner sees it in settings. */
export interface TokenView extends TokenSummary {
  /** The latest call recorded in its activity log (written in batches: may trail by a second). */
  lastUsedAt: string | null;
  status: TokenStatus;
}

export interface TokenViewPage {
  items: TokenView[];
  /** The next (older) page's continuation token, or null on the last page. */
  nextToken: string | null;
}

/**
 * The actor's personal access tokens, newest first, with last use and status, in keyset pages like
 * GET /decks: `token` continues after the previous page's last token (400 BAD_REQUEST for a token
 * of another list).
 */
export async function listTokenViews(ctx: ServiceContext, actor: Actor, input: { limit: number; token?: string | undefined }): Promise<TokenViewPage> {
  const list = `pats:${actor.userId}`;
  const position = continuationOf(ctx.secrets.cursorKey, input.token, list, ['string', 'string']);
  const after = position === null ? null : { createdAt: position[0] as string, id: position[1] as string };
  const now = ctx.clock.now();
  const rows = await pagePatsOfUserWithLastUse(ctx.db, actor.userId, input.limit + 1, after);
  const page = keysetPage(ctx.secrets.cursorKey, rows, input.limit, list, (t) => [t.createdAt, t.id]);
  return { items: page.rows.map((t) => ({ ...summary(t), lastUsedAt: t.lastUsedAt, status: tokenStatus(t, now) })), nextToken: page.nextToken };
}

/** One of the actor's personal access tokens; anyone else's, or none, is TOKEN_NOT_FOUND alike. */
async function ownToken(ctx: ServiceContext, actor: Actor, tokenId: string): Promise<TokenRecord> {
  const token = await findTokenById(ctx.db, tokenId);
  if (!token || token.userId !== actor.userId || token.kind !== 'pat') throw new AppError('TOKEN_NOT_FOUND', 'No such token');
  return token;
}

export async function getTokenView(ctx: ServiceContext, actor: Actor, input: { tokenId: string }): Promise<TokenView> {
  const token = await ownToken(ctx, actor, input.tokenId);
  return { ...summary(token), lastUsedAt: await lastUseOfToken(ctx.db, token.id), status: tokenStatus(token, ctx.clock.now()) };
}

/** The actor revokes one of their tokens (the settings page), as the operator's revokeToken does. */
export async function revokeOwnToken(ctx: ServiceContext, actor: Actor, input: { tokenId: string }): Promise<void> {
  await revoke(ctx, await ownToken(ctx, actor, input.tokenId));
}

/**
 * Operator: revokes any token by id. This instance refuses it at once; the others within the
 * token cache's lifetime (token-cache.ts).
 */
export async function revokeToken(ctx: ServiceContext, input: { tokenId: string }): Promise<void> {
  const token = await findTokenById(ctx.db, input.tokenId);
  if (!token) throw new AppError('TOKEN_NOT_FOUND', `no token with id ${input.tokenId}`);
  await revoke(ctx, token);
}

async function revoke(ctx: ServiceContext, token: TokenRecord): Promise<void> {
  if (token.revokedAt !== null) throw new AppError('TOKEN_ALREADY_REVOKED', `token ${token.id} is already revoked`);
  await markTokenRevoked(ctx.db, token.id, ctx.clock.now().toISOString());
  ctx.tokenRows.forget(token.prefix);
}
