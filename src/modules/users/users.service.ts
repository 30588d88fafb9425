import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Actor } from '../identity/principal.ts';
import { endAllSessions } from '../sessions/sessions.service.ts';
import { checkPasswordRule } from './password.ts';
import {
  findCredentials, findPasswordHash, findUserByEmail, insertUser, insertUserWithPassword, setPasswordHash, type User,
} from './users.repository.ts';

export type { User } from './users.repository.ts';

const EMAIL = /^[^\s@]+@([^\s@]+)$/;

/** local@domain, the domain holding a dot with text on both sides (checked without backtracking). */
function isEmail(value: string): boolean {
  const domain = EMAIL.exec(value)?.[1];
  if (domain === undefined) return false;
  const dot = domain.indexOf('.', 1);
  return dot !== -1 && dot < domain.length - 1;
}

export function normaliseEmail(email: string): string {
  const value = email.trim().toLowerCase();
  if (value.length > 254 || !isEmail(value)) throw new AppError('INVALID_INPUT', `not an email address: ${email}`, { field: 'email' });
  return value;
}

/** Operator: a new user (the CLI's `users add`). */
export async function addUser(ctx: ServiceContext, input: { email: string }): Promise<User> {
  const normalised = normaliseEmail(input.email);
  if (await findUserByEmail(ctx.db, normalised)) throw new AppError('USER_EXISTS', `a user with email ${normalised} already exists`);
  const user = { id: newId('usr'), email: normalised, createdAt: ctx.clock.now().toISOString() };
  await insertUser(ctx.db, user);
  return user;
}

/** Operator: the user with this email, or USER_NOT_FOUND. */
export async function getUserByEmail(ctx: ServiceContext, input: { email: string }): Promise<User> {
  const user = await findUserByEmail(ctx.db, normaliseEmail(input.email));
  if (!user) throw new AppError('USER_NOT_FOUND', `no user with email ${input.email}`);
  return user;
}

/** The one message of every failed sign-in: an unknown email and a wrong password look the same. */
export const SIGN_IN_FAILED = 'The email or password is not right';

/** A person signs up with an email and a password (the web page; the operator may close it). */
export async function signUp(ctx: ServiceContext, input: { email: string; password: string }): Promise<User> {
  const email = normaliseEmail(input.email);
  checkPasswordRule(input.password);
  const hash = await ctx.passwords.hash(input.password);
  const user = { id: newId('usr'), email, createdAt: ctx.clock.now().toISOString() };
  // The unique email decides a race between two sign-ups, not a read before the write.
  // Said plainly (see docs/decisions-made.md): without a confirmation email, a sign-up that works
  // tells as much; the per-address throttle is what bounds probing.
  if (!(await insertUserWithPassword(ctx.db, user, hash))) {
    throw new AppError('USER_EXISTS', 'An account with this email already exists. Sign in instead, or use another email.');
  }
  return user;
}

/**
 * The user whose email and password these are, or INVALID_CREDENTIALS with one message. An
 * unknown email, a user without a password and a wrong password each cost one scrypt, so neither
 * the answer nor its time tells them apart.
 */
export async function checkCredentials(ctx: ServiceContext, input: { email: string; password: string }): Promise<User> {
  const email = input.email.trim().toLowerCase();
  const found = email.length <= 254 ? await findCredentials(ctx.db, email) : null;
  const ok = await ctx.passwords.verify(input.password, found?.passwordHash ?? (await ctx.passwords.decoy()));
  if (!ok || found?.passwordHash == null) throw new AppError('INVALID_CREDENTIALS', SIGN_IN_FAILED);
  return found.user;
}

/**
 * The actor changes their password, knowing the current one. Every session of theirs ends (on
 * every instance); the caller starts a new one for the browser that made the change.
 */
export async function changePassword(ctx: ServiceContext, actor: Actor, input: { current: string; next: string }): Promise<void> {
  const stored = await findPasswordHash(ctx.db, actor.userId);
  const ok = await ctx.passwords.verify(input.current, stored ?? (await ctx.passwords.decoy()));
  if (!ok || stored === null) throw new AppError('INVALID_INPUT', 'The current password is not right', { field: 'current' });
  checkPasswordRule(input.next, 'next');
  await setPasswordHash(ctx.db, actor.userId, await ctx.passwords.hash(input.next), ctx.clock.now().toISOString());
  await endAllSessions(ctx, actor);
}

/** Operator: sets a user's password (the CLI's `users set-password`); their sessions end. */
export async function setPassword(ctx: ServiceContext, input: { email: string; password: string }): Promise<void> {
  const user = await getUserByEmail(ctx, { email: input.email });
  checkPasswordRule(input.password);
  await setPasswordHash(ctx.db, user.id, await ctx.passwords.hash(input.password), ctx.clock.now().toISOString());
  await endAllSessions(ctx, { userId: user.id });
}
