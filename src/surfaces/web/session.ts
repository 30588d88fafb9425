// Who is looking at a page. Every page request (not /assets/) resumes the browser's session from
// the `flashdeck_session` cookie into `request.viewer` (null when signed out); routes that need a
// signed-in person say so with the route options below. Sign-in, sign-out and password changes go
// through startBrowserSession / endBrowserSession so the cookie and the stored session agree.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.ts';
import type { Actor } from '../../modules/identity/principal.ts';
import { endSignInSession, resumeSignInSession, SESSION_IDLE_MS, startSignInSession, type Viewer } from '../../modules/sessions/sessions.service.ts';
import { signInUrl } from './next.ts';
import { cookieOptions, SESSION_COOKIE } from '../page-security.ts';

export type { Viewer } from '../../modules/sessions/sessions.service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person of a page request, or null (web surface only). */
    viewer: Viewer | null;
  }
}

const SESSION_MAX_AGE = SESSION_IDLE_MS / 1000;

export function bindSessions(scope: FastifyInstance, ctx: ServiceContext): void {
  scope.decorateRequest('viewer', null);
  scope.addHook('onRequest', async (request, reply) => {
    // Static files need no session (and cost no database read).
    if (request.url.startsWith('/assets/')) return;
    const id = request.cookies[SESSION_COOKIE];
    if (id === undefined || id === '') return;
    const resumed = await resumeSignInSession(ctx, { id });
    if (resumed === null) {
      void reply.clearCookie(SESSION_COOKIE, cookieOptions(ctx.publicUrl));
      return;
    }
    request.viewer = resumed.viewer;
    if (resumed.refreshed) void reply.setCookie(SESSION_COOKIE, id, cookieOptions(ctx.publicUrl, SESSION_MAX_AGE));
  });
}

/**
 * preHandler: a signed-out request is sent to sign in (303 to `/signin?next=<this page>` for a
 * GET; a form post goes to `/signin`, since its body cannot be replayed).
 */
export function requireViewer(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  if (request.viewer !== null) {
    done();
    return;
  }
  void reply.header('Cache-Control', 'no-store').redirect(request.method === 'GET' ? signInUrl(request.url) : '/signin', 303);
}

/** The signed-in person of a route that has `requireViewer` (a programming error otherwise). */
export function viewerOf(request: FastifyRequest): Viewer {
  if (request.viewer === null) throw new Error('route without requireViewer');
  return request.viewer;
}

/** Signs this browser in as `actor`: a new session id (the old one, if any, ends), a fresh cookie. */
export async function startBrowserSession(ctx: ServiceContext, request: FastifyRequest, reply: FastifyReply, actor: Actor): Promise<void> {
  const { id } = await startSignInSession(ctx, actor, { replacing: request.cookies[SESSION_COOKIE] });
  void reply.setCookie(SESSION_COOKIE, id, cookieOptions(ctx.publicUrl, SESSION_MAX_AGE));
}

/** Signs this browser out: its session ends on every instance and the cookie is cleared. */
export async function endBrowserSession(ctx: ServiceContext, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const id = request.cookies[SESSION_COOKIE];
  if (id !== undefined) await endSignInSession(ctx, { id });
  void reply.clearCookie(SESSION_COOKIE, cookieOptions(ctx.publicUrl));
}

