// How a page route answers: renderPage (a template inside the layout, with the viewer and a CSRF
// token for its forms), attempt (a service call whose refusal re-renders the form with the
// message), checkCsrf (the preHandler every state-changing form route has), and the route options
// that combine them. Templates are Eta, auto-escaping (`<%= %>`); `<%~ %>` only for HTML this
// code made (the layout's body, the card renderer's output).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { isAppError, type AppError } from '../../errors.ts';
import { requireViewer } from './session.ts';

export const HTML_TYPE = 'text/html; charset=utf-8';

/** What every template sees besides its own data (`it.viewer`, `it.csrf`, `it.title`, ...). */
export interface PageContext {
  /** The page's <title> and <h1>. */
  title: string;
  [key: string]: unknown;
}

/** Anonymous visitors' CSRF tokens are bound to this; a signed-in person's to their session. */
const SIGNED_OUT = 'signed-out';

export function csrfUserInfo(request: FastifyRequest): string {
  return request.viewer?.sessionKey ?? SIGNED_OUT;
}

/** A CSRF token for a form on this page (bound to the browser's secret cookie and its session). */
export function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  return reply.generateCsrf({ userInfo: csrfUserInfo(request) });
}

/**
 * Renders `views/<template>.eta` inside the layout. Every page is private to its viewer and
 * never cached. A form in the template posts `<input type="hidden" name="_csrf" value="<%= it.csrf %>">`.
 */
export async function renderPage(
  request: FastifyRequest, reply: FastifyReply, template: string, data: PageContext, status = 200,
): Promise<FastifyReply> {
  const html = await reply.viewAsync(template, {
    ...data, viewer: request.viewer, csrf: csrfToken(request, reply), path: request.url.split('?')[0],
  });
  return reply.code(status).type(HTML_TYPE).header('Cache-Control', 'no-store').send(html);
}

export type Attempt<T> = { ok: true; value: T } | { ok: false; error: AppError };

/**
 * Runs a service call from a form: a refusal the person can act on (a catalog error below 500,
 * such as INVALID_INPUT or USER_EXISTS) comes back to show beside the form, with its status;
 * anything else goes to the error page.
 */
export async function attempt<T>(action: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await action() };
  } catch (error) {
    if (isAppError(error) && error.status < 500) return { ok: false, error };
    throw error;
  }
}

/**
 * preHandler of every state-changing form: the `_csrf` field (or an `X-CSRF-Token` header from a
 * page script) must be a token this browser's secret made for this session; else 403 page.
 */
export function checkCsrf(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
  this.csrfProtection(request, reply, done);
}

/** A page for signed-in people (GET). */
export const SIGNED_IN: RouteShorthandOptions = { preHandler: requireViewer };
/** A form post of a signed-in person: sign-in required, then CSRF. */
export const SIGNED_IN_FORM: RouteShorthandOptions = { preHandler: [requireViewer, checkCsrf] };
/**
 * A form post that writes (a deck made, imported, copied, deleted, restored): SIGNED_IN_FORM, then
 * the write admitted in the person's web bucket before the handler runs (web-writes.ts).
 */
export const WEB_WRITE: RouteShorthandOptions = { ...SIGNED_IN_FORM, config: { webWrite: true } };
/** A form post anyone may make (sign in, sign up): CSRF only. */
export const ANYONE_FORM: RouteShorthandOptions = { preHandler: checkCsrf };

/** A 303 to another page after a form post (Post/Redirect/Get). */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.header('Cache-Control', 'no-store').redirect(location, 303);
}

/** One field of a urlencoded form as a string ('' when absent; the first of repeats). */
export function field(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null || !Object.hasOwn(body, name)) return '';
  const value: unknown = (body as Record<string, unknown>)[name];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return '';
}

/** Every value of a repeated field (checkboxes). */
export function fields(body: unknown, name: string): string[] {
  if (typeof body !== 'object' || body === null || !Object.hasOwn(body, name)) return [];
  const value: unknown = (body as Record<string, unknown>)[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
