// The OAuth pages of the web surface: the consent page oidc-provider sends the browser to
// (`/oauth/interaction/:uid`, after sign-in), and `/settings/apps` (the clients a person granted
// access, their activity, Disconnect). Grants, tokens and their refusal are the authorization
// server's (src/surfaces/oauth/provider.ts) and modules/oauth's; this file only asks and shows.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { InteractionDetails } from 'oidc-provider';
import { knownScopes, isOauthScope, type AuthorizationScope } from '../../../modules/oauth/authorization-scopes.ts';
import { disconnectApp, listAppActivity, listGrantedApps, recordConsent, SCOPE_WORDS } from '../../../modules/oauth/oauth.service.ts';
import { redirectFormSource, redirectTarget } from '../../../modules/oauth/redirect-uris.ts';
import { AppError } from '../../../errors.ts';
import { field, fields, renderPage, seeOther, SIGNED_IN, SIGNED_IN_FORM } from '../render.ts';
import { cspDirectives, cspHeader } from '../../page-security.ts';
import { viewerOf } from '../session.ts';
import type { WebDeps } from '../web.surface.ts';

const ACTIVITY_SHOWN = 100;

interface UidParams { uid: string }
interface GrantParams { grantId: string }

function list(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((v) => v !== '');
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * The scopes the request asks for: the provider has already dropped unknown ones and put the
 * default in place of none (authorization-scopes.ts), so this only reads them.
 */
function requestedScopes(details: InteractionDetails): AuthorizationScope[] {
  return knownScopes(typeof details.params.scope === 'string' ? details.params.scope : undefined);
}

/**
 * The page's CSP, with the client's redirect added to form-action (its origin, or a native app's
 * scheme): browsers apply form-action to every redirect that follows the Allow/Deny post, the last
 * of which goes there.
 */
function consentCsp(redirectUri: string): string {
  const directives = cspDirectives();
  const source = redirectFormSource(redirectUri);
  if (source !== null) directives['form-action'] = ["'self'", source];
  return cspHeader(directives);
}

export function oauthPages(scope: FastifyInstance, { ctx, oauth }: WebDeps): void {
  /**
   * The provider and this browser's pending authorization request. The provider is asked for
   * outside the try: a provider that cannot be made is a 500, not an expired request.
   */
  async function interaction(request: FastifyRequest<{ Params: UidParams }>, reply: FastifyReply): Promise<{ provider: Provider; details: InteractionDetails }> {
    const provider = await oauth.provider();
    let details: InteractionDetails;
    try {
      details = await provider.interactionDetails(request.raw, reply.raw);
    } catch {
      throw new AppError('BAD_REQUEST', 'This authorization request has expired or was already answered. Start again from the app.');
    }
    if (details.uid !== request.params.uid) throw new AppError('BAD_REQUEST', 'This authorization request does not belong to this browser. Start again from the app.');
    return { provider, details };
  }

  scope.get<{ Params: UidParams }>('/oauth/interaction/:uid', SIGNED_IN, async (request, reply) => {
    const { provider, details } = await interaction(request, reply);
    const client = await provider.Client.find(String(details.params.client_id));
    if (client === undefined) throw new AppError('BAD_REQUEST', 'The app asking for access is not known. Start again from the app.');
    const redirectUri = String(details.params.redirect_uri);
    const clientName = client.clientName ?? client.clientId;
    void reply.header('Content-Security-Policy', consentCsp(redirectUri));
    return renderPage(request, reply, 'consent', {
      title: `Allow ${clientName} to use your Flashdeck account?`,
      clientName,
      clientId: client.clientId,
      redirectHost: redirectTarget(redirectUri),
      uid: details.uid,
      scopes: requestedScopes(details).map((s) => ({ scope: s, words: SCOPE_WORDS[s], id: `scope-${s.replace(/\W/g, '-')}` })),
    });
  });

  scope.post<{ Params: UidParams }>('/oauth/interaction/:uid', SIGNED_IN_FORM, async (request, reply) => {
    const viewer = viewerOf(request);
    const { provider, details } = await interaction(request, reply);
    const clientId = String(details.params.client_id);
    const requested = requestedScopes(details);
    // The person may narrow the scopes, never widen them.
    const chosen = requested.filter((s) => fields(request.body, 'scopes').includes(s));
    const chosenOauth = chosen.filter(isOauthScope);
    let result: Record<string, unknown>;
    if (field(request.body, 'decision') !== 'allow' || chosenOauth.length === 0) {
      result = { error: 'access_denied', error_description: 'The person denied the app access' };
    } else {
      const client = await provider.Client.find(clientId);
      const grant = new provider.Grant({ accountId: viewer.userId, clientId });
      // The scopes are both the provider's own (it lists them in its metadata; `openid` makes it
      // issue an ID token) and each resource's (the access token's). What the person unticked is
      // recorded as refused, so the provider issues the narrower set instead of asking again.
      grant.addOIDCScope(chosen.join(' '));
      const refused = requested.filter((s) => !chosen.includes(s));
      if (refused.length > 0) grant.rejectOIDCScope(refused.join(' '));
      const refusedOauth = refused.filter(isOauthScope).join(' ');
      const resources = list(details.params.resource);
      for (const resource of resources.length === 0 ? [`${ctx.publicUrl}/api/v1`] : resources) {
        grant.addResourceScope(resource, chosenOauth.join(' '));
        if (refusedOauth !== '') grant.rejectResourceScope(resource, refusedOauth);
      }
      const grantId = await grant.save();
      const redirectUri = String(details.params.redirect_uri);
      await recordConsent(ctx, viewer, {
        grantId, clientId, clientName: client?.clientName ?? clientId, redirectHost: redirectTarget(redirectUri),
      });
      result = { login: { accountId: viewer.userId, remember: false }, consent: { grantId } };
    }
    const location = await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
    return seeOther(reply, location);
  });

  scope.get('/settings/apps', SIGNED_IN, async (request, reply) => {
    return renderPage(request, reply, 'apps', {
      title: 'Apps',
      apps: await listGrantedApps(ctx, viewerOf(request)),
      notice: field(request.query, 'done') === 'disconnected' ? 'The app is disconnected. The API refuses it from now on.' : null,
    });
  });

  scope.get<{ Params: GrantParams }>('/settings/apps/:grantId', SIGNED_IN, async (request, reply) => {
    const { app, activity } = await listAppActivity(ctx, viewerOf(request), { grantId: request.params.grantId, limit: ACTIVITY_SHOWN });
    return renderPage(request, reply, 'app', { title: `App “${app.clientName}”`, app, activity });
  });

  scope.post<{ Params: GrantParams }>('/settings/apps/:grantId/disconnect', SIGNED_IN_FORM, async (request, reply) => {
    await disconnectApp(ctx, viewerOf(request), { grantId: request.params.grantId });
    return seeOther(reply, '/settings/apps?done=disconnected');
  });
}
