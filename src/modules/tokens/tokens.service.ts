// Personal access tokens: made for a user (by the CLI today, by the settings pages next), listed,
// revoked. Their verification is pat-verifier.ts.
import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Actor } from '../identity/principal.ts';
import { isScope, type Scope } from '../identity/scopes.ts';
import { forgetToken } from './token-cache.ts';
import { generatePat, hashToken } from './token-format.ts';
import { findTokenById, insertToken, listTokensOfUser, markTokenRevoked, type TokenRecord } from './tokens.repository.ts';

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
  if (unknown.length > 0) throw invalid('scopes', `unknown scope: ${unknown.join(', ')}`);
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

/**
 * Operator: revokes any token by id. This instance refuses it at once; the others within the
 * token cache's lifetime (token-cache.ts).
 */
export async function revokeToken(ctx: ServiceContext, input: { tokenId: string }): Promise<void> {
  const token = await findTokenById(ctx.db, input.tokenId);
  if (!token) throw new AppError('TOKEN_NOT_FOUND', `no token with id ${input.tokenId}`);
  if (token.revokedAt !== null) throw new AppError('TOKEN_ALREADY_REVOKED', `token ${input.tokenId} is already revoked`);
  await markTokenRevoked(ctx.db, input.tokenId, ctx.clock.now().toISOString());
  forgetToken(ctx.db, token.prefix);
}
