// Personal access tokens in settings: create on its own page (shown once, after a redirect), list, revoke (after a confirmation
// page), and one token's details with its activity log. The same tokens service as the CLI, so a
// token made here is one the API accepts, and a revocation here is refused by the API on every
// instance within the token cache's lifetime, as the CLI's.
import type { FastifyInstance } from 'fastify';
import { ACTIVITY_OUTCOMES, listOwnTokenActivity } from '../../../modules/activity/activity.service.ts';
import { TOKEN_SCOPES, type Scope } from '../../../modules/identity/scopes.ts';
import {
  createToken, DEFAULT_TOKEN_EXPIRY_DAYS, getTokenView, listTokenViews, revokeOwnToken, TOKEN_EXPIRY_DAYS,
} from '../../../modules/tokens/tokens.service.ts';
import { pageMessage } from '../page-wording.ts';
import { attempt, field, fields, renderPage, seeOther, SIGNED_IN, SIGNED_IN_FORM, type PageContext } from '../render.ts';
import { openShownOnce, sealShownOnce } from '../shown-once.ts';
import { shownTime } from '../time-words.ts';
import { viewerOf, type Viewer } from '../session.ts';
import type { WebDeps } from '../web.surface.ts';

export const ACTIVITY_PER_PAGE = 100;
/** Tokens listed per page of /settings/tokens (keyset pages, newest first). */
export const TOKENS_PER_PAGE = 50;

/** What each scope lets a token do, shown beside its checkbox. */
export const SCOPE_WORDS: Record<Scope, string> = {
  'decks:read': 'Read your decks and their cards',
  'decks:write': 'Create, import and change your decks and cards',
  'reviews:read': 'Read your review sessions',
  'reviews:write': 'Start and answer review sessions',
  'decks:delete': 'Delete your decks',
  'public-decks:read': 'Read decks other people made public',
};

const SCOPES = TOKEN_SCOPES.map((scope) => ({ scope, words: SCOPE_WORDS[scope], id: `scope-${scope.replace(/\W/g, '-')}` }));
const EXPIRIES = TOKEN_EXPIRY_DAYS.map((days) => ({ days, label: `${days} days` }));

interface TokenParams { tokenId: string }

/** The exact day each expiry would end on, if the token were made now (the form shows them). */
function expiryDates(now: Date) {
  return EXPIRIES.map((e) => ({ ...e, until: new Date(now.getTime() + e.days * 86_400_000).toISOString() }));
}

const createdPath = (tokenId: string) => `/settings/tokens/${encodeURIComponent(tokenId)}/created`;

export function tokenPages(scope: FastifyInstance, { ctx }: WebDeps): void {
  /** The list, from its first page or from the continuation token `token`. */
  async function listPage(viewer: Viewer, token = ''): Promise<PageContext> {
    const page = await listTokenViews(ctx, viewer, { limit: TOKENS_PER_PAGE, token });
    return {
      title: 'Personal access tokens',
      tokens: page.items,
      older: page.nextToken === null ? null : `/settings/tokens?token=${encodeURIComponent(page.nextToken)}`,
      newest: token === '' ? null : '/settings/tokens',
    };
  }

  /** The form of a new token (its own page, as GitHub's), with what the person typed after a refusal. */
  function newTokenPage(extra: Partial<PageContext> = {}): PageContext {
    return {
      title: 'New personal access token',
      scopes: SCOPES,
      expiries: expiryDates(ctx.clock.now()),
      form: { name: '', scopes: [] as string[], expiresDays: DEFAULT_TOKEN_EXPIRY_DAYS },
      ...extra,
    };
  }

  scope.get('/settings/tokens', SIGNED_IN, async (request, reply) => {
    return renderPage(request, reply, 'tokens', await listPage(viewerOf(request), field(request.query, 'token')));
  });

  scope.get('/settings/tokens/new', SIGNED_IN, async (request, reply) => renderPage(request, reply, 'token-new', newTokenPage()));

  // Post/redirect/get: the new token goes to the page that shows it once, sealed in a cookie
  // (shown-once.ts), so a reload of that page makes nothing and shows it no more.
  scope.post('/settings/tokens', SIGNED_IN_FORM, async (request, reply) => {
    const viewer = viewerOf(request);
    const form = {
      name: field(request.body, 'name'),
      scopes: fields(request.body, 'scopes'),
      expiresDays: Number(field(request.body, 'expiresDays') || DEFAULT_TOKEN_EXPIRY_DAYS),
    };
    const result = await attempt(() => createToken(ctx, viewer, form));
    if (!result.ok) return renderPage(request, reply, 'token-new', newTokenPage({ form, error: pageMessage(result.error) }), result.error.status);
    const path = createdPath(result.value.summary.id);
    sealShownOnce(ctx, reply, { path, sessionKey: viewer.sessionKey, value: result.value.token });
    return seeOther(reply, path);
  });

  // Not compressed: the page holds the new token beside the name the form sent (see web.surface.ts).
  scope.get<{ Params: TokenParams }>('/settings/tokens/:tokenId/created', { ...SIGNED_IN, compress: false }, async (request, reply) => {
    const viewer = viewerOf(request);
    const view = await getTokenView(ctx, viewer, { tokenId: request.params.tokenId });
    const secret = openShownOnce(ctx, request, reply, { path: createdPath(view.id), sessionKey: viewer.sessionKey });
    return renderPage(request, reply, 'token-created', {
      title: `Token “${view.name}” created`,
      token: view,
      secret,
      expires: view.expiresAt === null ? null : shownTime(view.expiresAt, ctx.clock.now()),
      scripts: secret === null ? [] : ['/assets/copy.js'],
    });
  });

  scope.get<{ Params: TokenParams }>('/settings/tokens/:tokenId', SIGNED_IN, async (request, reply) => {
    const viewer = viewerOf(request);
    const outcome = field(request.query, 'outcome');
    const token = field(request.query, 'token');
    const view = await getTokenView(ctx, viewer, { tokenId: request.params.tokenId });
    const page = await listOwnTokenActivity(ctx, viewer, { tokenId: view.id, limit: ACTIVITY_PER_PAGE, token, outcome });
    const self = `/settings/tokens/${encodeURIComponent(view.id)}`;
    const filter = outcome === '' ? '' : `outcome=${encodeURIComponent(outcome)}&`;
    return renderPage(request, reply, 'token', {
      title: `Token “${view.name}”`,
      token: view,
      activity: page.items,
      outcomes: ACTIVITY_OUTCOMES,
      outcome,
      self,
      older: page.nextToken === null ? null : `${self}?${filter}token=${encodeURIComponent(page.nextToken)}`,
      newest: token === '' ? null : (outcome === '' ? self : `${self}?outcome=${encodeURIComponent(outcome)}`),
      notice: field(request.query, 'done') === 'revoked' ? 'The token is revoked. Apps using it are refused from now on.' : null,
    });
  });

  scope.get<{ Params: TokenParams }>('/settings/tokens/:tokenId/revoke', SIGNED_IN, async (request, reply) => {
    const view = await getTokenView(ctx, viewerOf(request), { tokenId: request.params.tokenId });
    return renderPage(request, reply, 'token-revoke', { title: `Revoke token “${view.name}”?`, token: view });
  });

  scope.post<{ Params: TokenParams }>('/settings/tokens/:tokenId/revoke', SIGNED_IN_FORM, async (request, reply) => {
    const viewer = viewerOf(request);
    const result = await attempt(() => revokeOwnToken(ctx, viewer, { tokenId: request.params.tokenId }));
    // TOKEN_NOT_FOUND goes to the 404 page like any unknown token; revoking twice is harmless.
    if (!result.ok && result.error.code !== 'TOKEN_ALREADY_REVOKED') throw result.error;
    return seeOther(reply, `/settings/tokens/${encodeURIComponent(request.params.tokenId)}?done=revoked`);
  });
}
