// A secret shown once after a redirect (post/redirect/get): the new token travels from the form
// post to the page that shows it in a short-lived cookie, sealed (AES-256-GCM under a key derived
// from the deployment's CSRF secret, so every instance opens it) and bound to the session that
// made it. The page that shows it clears the cookie, so a reload shows it no more and makes
// nothing; the token itself is never stored in clear on the server.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.ts';
import { cookieOptions } from '../page-security.ts';

export const SHOWN_ONCE_COOKIE = 'flashdeck_shown_once';
/** Long enough for a redirect on a slow link, short enough that a forgotten tab holds nothing. */
const MAX_AGE_SECONDS = 120;
const keys = new WeakMap<ServiceContext, Buffer>();

function keyOf(ctx: ServiceContext): Buffer {
  let key = keys.get(ctx);
  if (key === undefined) {
    key = Buffer.from(hkdfSync('sha256', ctx.secrets.csrfKey, 'flashdeck', 'shown-once cookie', 32));
    keys.set(ctx, key);
  }
  return key;
}

function options(ctx: ServiceContext, path: string, maxAge?: number) {
  return { ...cookieOptions(ctx.publicUrl, maxAge), path, sameSite: 'strict' as const };
}

/** Seals `value` for the next GET of `path` by this session. */
export function sealShownOnce(ctx: ServiceContext, reply: FastifyReply, input: { path: string; sessionKey: string; value: string }): void {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(ctx), iv);
  cipher.setAAD(Buffer.from(`${input.path}\n${input.sessionKey}`));
  const sealed = Buffer.concat([iv, cipher.update(input.value, 'utf8'), cipher.final(), cipher.getAuthTag()]).toString('base64url');
  void reply.setCookie(SHOWN_ONCE_COOKIE, sealed, options(ctx, input.path, MAX_AGE_SECONDS));
}

/** The value sealed for this path and session, once: the cookie is cleared whatever it held. */
export function openShownOnce(ctx: ServiceContext, request: FastifyRequest, reply: FastifyReply, input: { path: string; sessionKey: string }): string | null {
  const sealed = request.cookies[SHOWN_ONCE_COOKIE];
  if (sealed === undefined || sealed === '') return null;
  void reply.clearCookie(SHOWN_ONCE_COOKIE, options(ctx, input.path));
  try {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < 12 + 16) return null;
    const decipher = createDecipheriv('aes-256-gcm', keyOf(ctx), bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(`${input.path}\n${input.sessionKey}`));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return null; // another session's, tampered with, or sealed under another key
  }
}
