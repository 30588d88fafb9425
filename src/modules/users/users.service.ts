import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { findUserByEmail, insertUser, type User } from './users.repository.ts';

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
