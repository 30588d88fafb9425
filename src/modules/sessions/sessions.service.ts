// Server-side sessions of the web pages. The browser holds a random id (256 bits) in the
// `flashdeck_session` cookie; the database holds only its SHA-256, so every instance sees the same
// sessions and ending one (sign out, sign out everywhere, a password change) ends it everywhere at
// once. Idle expiry: 30 days after the last page seen, refreshed at most once an hour so a page
// view is a read, not a write.
import { createHash, randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import type { Actor } from '../identity/principal.ts';
import {
  deleteSession, deleteSessionsOfUser, deleteSessionsSeenBefore, findSession, insertSession, touchSession,
} from './sessions.repository.ts';

export const SESSION_IDLE_MS = 30 * 86_400_000;
/** How stale `seen_at` may get before a page view writes it again. */
export const SESSION_TOUCH_MS = 3_600_000;

/** The signed-in person as pages see them. */
export interface Viewer extends Actor {
  readonly userId: string;
  readonly email: string;
  /** The session's key (the hash of its id): CSRF tokens are bound to it. */
  readonly sessionKey: string;
}

const ID = /^[\w-]{43}$/;

function keyOf(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

/**
 * A new session for the actor (a sign-in, a sign-up, a password change); the one the browser had
 * before (`replacing`), if any, ends, so a session id planted before sign-in is worth nothing after.
 */
export async function startSignInSession(ctx: ServiceContext, actor: Actor, input: { replacing?: string | undefined }): Promise<{ id: string }> {
  if (input.replacing !== undefined && ID.test(input.replacing)) await deleteSession(ctx.db, keyOf(input.replacing));
  const id = randomBytes(32).toString('base64url');
  await insertSession(ctx.db, { idHash: keyOf(id), userId: actor.userId, at: ctx.clock.now().toISOString() });
  return { id };
}

/**
 * The viewer of a session id from a cookie, or null (unknown, ended, idle too long). `refreshed`
 * tells the caller to send the cookie again, so the browser's copy lives as long as the session.
 */
export async function resumeSignInSession(ctx: ServiceContext, input: { id: string }): Promise<{ viewer: Viewer; refreshed: boolean } | null> {
  if (!ID.test(input.id)) return null;
  const key = keyOf(input.id);
  const row = await findSession(ctx.db, key);
  if (row === null) return null;
  const now = ctx.clock.now().getTime();
  const idle = now - Date.parse(row.seenAt);
  if (idle >= SESSION_IDLE_MS) {
    await deleteSession(ctx.db, key);
    return null;
  }
  const refreshed = idle >= SESSION_TOUCH_MS;
  if (refreshed) await touchSession(ctx.db, key, new Date(now).toISOString());
  return { viewer: { userId: row.userId, email: row.email, sessionKey: key }, refreshed };
}

/** Sign out: this browser's session ends on every instance. */
export async function endSignInSession(ctx: ServiceContext, input: { id: string }): Promise<void> {
  if (ID.test(input.id)) await deleteSession(ctx.db, keyOf(input.id));
}

/** Sign out everywhere: every session of the actor ends. */
/** Ends every session of the actor, on every instance; says how many it ended. */
export async function endAllSessions(ctx: ServiceContext, actor: Actor): Promise<{ ended: number }> {
  return { ended: await deleteSessionsOfUser(ctx.db, actor.userId) };
}

export async function purgeIdleSessions(ctx: ServiceContext): Promise<void> {
  await deleteSessionsSeenBefore(ctx.db, new Date(ctx.clock.now().getTime() - SESSION_IDLE_MS).toISOString());
}
