// Sign up, sign in, sign out, and the account settings (password change, sign out everywhere).
// Each form calls the users and sessions services, as the CLI does; the sign-in runs under the
// policy's throttles (sign-in per account and per client address, sign-up per client address,
// shared by every instance).
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../errors.ts';
import { withErrorHeaders } from '../../errors.ts';
import { endAllSessions } from '../../../modules/sessions/sessions.service.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../../modules/users/password.ts';
import { changePassword, checkCredentials, signUp } from '../../../modules/users/users.service.ts';
import { safeNext } from '../next.ts';
import { pageMessage } from '../page-wording.ts';
import {
  ANYONE_FORM, attempt, field, renderPage, seeOther, SIGNED_IN, SIGNED_IN_FORM,
} from '../render.ts';
import { endBrowserSession, startBrowserSession, viewerOf } from '../session.ts';
import type { WebDeps } from '../web.surface.ts';

const PASSWORD_HINT = `${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`;

function query(request: { query: unknown }, name: string): string {
  return field(request.query, name);
}

/** What `Sign out everywhere` did, said on the sign-in page it leads to. */
function signedOutNotice(request: { query: unknown }): string | null {
  if (query(request, 'done') !== 'everywhere') return null;
  const ended = Number(query(request, 'ended'));
  const count = Number.isInteger(ended) && ended > 0 ? `${ended} ${ended === 1 ? 'session' : 'sessions'} ended` : 'every session ended';
  return `You are signed out everywhere: ${count}, on this browser and every other one. Your personal access tokens and connected apps keep working; revoke them under Tokens and Apps.`;
}

export function accountPages(scope: FastifyInstance, { ctx, policy, config }: WebDeps): void {
  const signupOpen = config.signup === 'open';
  const closed = () => new AppError('SIGNUP_CLOSED', 'Sign-up is closed on this server. Ask its operator for an account.');

  scope.get('/signup', async (request, reply) => {
    if (request.viewer !== null) return seeOther(reply, safeNext(query(request, 'next')));
    if (!signupOpen) return renderPage(request, reply, 'signup', { title: 'Sign up', closed: closed().message }, 403);
    return renderPage(request, reply, 'signup', { title: 'Sign up', next: safeNext(query(request, 'next')), hint: PASSWORD_HINT });
  });

  scope.post('/signup', ANYONE_FORM, async (request, reply) => {
    if (!signupOpen) return renderPage(request, reply, 'signup', { title: 'Sign up', closed: closed().message }, 403);
    const email = field(request.body, 'email');
    const next = safeNext(field(request.body, 'next'));
    const result = await attempt(() => policy.signUp(request.ip, () => signUp(ctx, { email, password: field(request.body, 'password') })));
    if (!result.ok) {
      withErrorHeaders(reply, result.error);
      return renderPage(request, reply, 'signup', { title: 'Sign up', email, next, hint: PASSWORD_HINT, error: pageMessage(result.error) }, result.error.status);
    }
    await startBrowserSession(ctx, request, reply, { userId: result.value.id });
    return seeOther(reply, next);
  });

  scope.get('/signin', async (request, reply) => {
    const next = safeNext(query(request, 'next'));
    if (request.viewer !== null) return seeOther(reply, next);
    return renderPage(request, reply, 'signin', { title: 'Sign in', next, notice: signedOutNotice(request) });
  });

  scope.post('/signin', ANYONE_FORM, async (request, reply) => {
    const email = field(request.body, 'email');
    const next = safeNext(field(request.body, 'next'));
    const result = await attempt(() => policy.signIn(email, request.ip, () => checkCredentials(ctx, { email, password: field(request.body, 'password') })));
    if (!result.ok) {
      withErrorHeaders(reply, result.error);
      return renderPage(request, reply, 'signin', { title: 'Sign in', email, next, error: pageMessage(result.error) }, result.error.status);
    }
    await startBrowserSession(ctx, request, reply, { userId: result.value.id });
    return seeOther(reply, next);
  });

  // Signing out needs the CSRF token too (a third-party page must not sign people out), but not a
  // live session: an expired one still clears the cookie and lands on the home page.
  // `next` (the consent page's "Not you?"): sign in again, as someone else, and go back there.
  scope.post('/signout', ANYONE_FORM, async (request, reply) => {
    await endBrowserSession(ctx, request, reply);
    const next = safeNext(field(request.body, 'next'));
    return seeOther(reply, next === '/' ? '/' : `/signin?next=${encodeURIComponent(next)}`);
  });

  scope.get('/settings/account', SIGNED_IN, async (request, reply) => {
    const viewer = viewerOf(request);
    const done = query(request, 'done');
    return renderPage(request, reply, 'settings-account', {
      title: 'Account', email: viewer.email, hint: PASSWORD_HINT,
      notice: done === 'password' ? 'Your password is changed. Every other session is signed out.' : null,
    });
  });

  scope.post('/settings/account/password', SIGNED_IN_FORM, async (request, reply) => {
    const viewer = viewerOf(request);
    const result = await attempt(() => changePassword(ctx, viewer, {
      current: field(request.body, 'current'), next: field(request.body, 'new'),
    }));
    if (!result.ok) {
      return renderPage(request, reply, 'settings-account', {
        title: 'Account', email: viewer.email, hint: PASSWORD_HINT, error: pageMessage(result.error),
      }, result.error.status);
    }
    // Every session ended with the change; this browser stays signed in with a new one.
    await startBrowserSession(ctx, request, reply, viewer);
    return seeOther(reply, '/settings/account?done=password');
  });

  scope.post('/settings/account/sign-out-everywhere', SIGNED_IN_FORM, async (request, reply) => {
    const { ended } = await endAllSessions(ctx, viewerOf(request));
    await endBrowserSession(ctx, request, reply);
    return seeOther(reply, `/signin?done=everywhere&ended=${ended}`);
  });
}
