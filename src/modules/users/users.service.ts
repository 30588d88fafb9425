import type { Db } from '../../db/database.ts';
import type { Clock } from '../../clock.ts';
import { newId } from '../../ids.ts';
import { UsageError } from '../../usage-error.ts';
import { findUserByEmail, insertUser, type User } from './users.repository.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normaliseEmail(email: string): string {
  const value = email.trim().toLowerCase();
  if (!EMAIL.test(value) || value.length > 254) throw new UsageError(`not an email address: ${email}`);
  return value;
}

export async function addUser(db: Db, clock: Clock, email: string): Promise<User> {
  const normalised = normaliseEmail(email);
  if (await findUserByEmail(db, normalised)) throw new UsageError(`a user with email ${normalised} already exists`);
  const user = { id: newId('usr'), email: normalised, createdAt: clock.now().toISOString() };
  await insertUser(db, user);
  return user;
}

export async function requireUser(db: Db, email: string): Promise<User> {
  const user = await findUserByEmail(db, normaliseEmail(email));
  if (!user) throw new UsageError(`no user with email ${email}`);
  return user;
}
