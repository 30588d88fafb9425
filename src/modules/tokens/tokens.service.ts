import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { UsageError } from '../../usage-error.ts';
import { requireUser } from '../users/users.service.ts';
import { DEFAULT_TOKEN_EXPIRY_DAYS, TOKEN_EXPIRY_DAYS, isScope, type Scope } from './scopes.ts';
import { cachedToken, forgetToken } from './token-cache.ts';
import { generatePat, hashToken, hashesEqual, parsePat } from './token-format.ts';
import {
  findTokenById, findTokenByPrefix, insertToken, listTokensOfUser, markTokenRevoked, type TokenRecord,
} from './tokens.repository.ts';

/** Who is calling: the result of authenticating a bearer token. */
export interface Principal {
  userId: string;
  tokenId: string;
  tokenName: string;
  tokenPrefix: string;
  scopes: readonly Scope[];
  source: 'pat' | 'oauth';
}

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
  email: string;
  name: string;
  scopes: string[];
  expiresDays?: number;
}

export async function createToken(db: Db, clock: Clock, hashKey: string, input: CreateTokenInput): Promise<{ token: string; summary: TokenSummary }> {
  const user = await requireUser(db, input.email);
  const name = input.name.trim();
  if (name === '' || name.length > 100) throw new UsageError('the token name must be 1 to 100 characters');
  const scopes = [...new Set(input.scopes.map((s) => s.trim()).filter((s) => s !== ''))];
  if (scopes.length === 0) throw new UsageError('at least one scope is required');
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new UsageError(`unknown scope: ${unknown.join(', ')}`);
  const days = input.expiresDays ?? DEFAULT_TOKEN_EXPIRY_DAYS;
  if (!(TOKEN_EXPIRY_DAYS as readonly number[]).includes(days)) {
    throw new UsageError(`expiry must be one of ${TOKEN_EXPIRY_DAYS.join(', ')} days`);
  }
  const now = clock.now();
  const { token, prefix } = generatePat();
  const record: TokenRecord = {
    id: newId('tok'),
    userId: user.id,
    kind: 'pat',
    name,
    prefix,
    hash: hashToken(hashKey, token),
    scopes: scopes as Scope[],
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + days * 86_400_000).toISOString(),
    revokedAt: null,
  };
  await insertToken(db, record);
  return { token, summary: summary(record) };
}

export async function listTokens(db: Db, email: string): Promise<TokenSummary[]> {
  const user = await requireUser(db, email);
  return (await listTokensOfUser(db, user.id)).map(summary);
}

export async function revokeToken(db: Db, clock: Clock, tokenId: string): Promise<void> {
  const token = await findTokenById(db, tokenId);
  if (!token) throw new UsageError(`no token with id ${tokenId}`);
  if (token.revokedAt !== null) throw new UsageError(`token ${tokenId} is already revoked`);
  await markTokenRevoked(db, tokenId, clock.now().toISOString());
  forgetToken(db, token.prefix);
}

export async function requireToken(db: Db, tokenId: string): Promise<TokenSummary> {
  const token = await findTokenById(db, tokenId);
  if (!token) throw new UsageError(`no token with id ${tokenId}`);
  return summary(token);
}

/** Resolves a presented bearer token to its principal, or throws UNAUTHORIZED / TOKEN_REVOKED. */
export async function authenticateToken(db: Db, clock: Clock, hashKey: string, presented: string): Promise<Principal> {
  const prefix = parsePat(presented);
  if (prefix === null) throw new AppError('UNAUTHORIZED', 'The access token is malformed');
  const cached = await cachedToken(db, prefix, (p) => findTokenByPrefix(db, p));
  if (!cached) throw new AppError('UNAUTHORIZED', 'The access token is not valid');
  const token = cached.token;
  if (cached.verified === undefined || !hashesEqual(cached.verified, presented)) {
    if (!hashesEqual(token.hash, hashToken(hashKey, presented))) throw new AppError('UNAUTHORIZED', 'The access token is not valid');
    cached.verified = presented;
  }
  if (token.revokedAt !== null) throw new AppError('TOKEN_REVOKED', 'The access token has been revoked');
  if (token.expiresAt !== null && Date.parse(token.expiresAt) <= clock.now().getTime()) {
    throw new AppError('TOKEN_REVOKED', 'The access token has expired');
  }
  return {
    userId: token.userId,
    tokenId: token.id,
    tokenName: token.name,
    tokenPrefix: token.prefix,
    scopes: token.scopes,
    source: token.kind,
  };
}
