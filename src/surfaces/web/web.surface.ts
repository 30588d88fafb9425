// The web pages at the root of the site ({PUBLIC_URL}/...), as one encapsulated plugin owning what
// pages need and no other surface should meet: urlencoded form bodies (@fastify/formbody, nothing
// else), cookies, the browser's session (request.viewer), CSRF tokens, the security headers
// (@fastify/helmet), multipart uploads where a page takes a file (uploads.ts), Eta templates in one layout (@fastify/view), static assets under /assets/
// (ours from memory, assets.ts; KaTeX's with @fastify/static), and HTML error and not-found
// pages. Registered with `{ prefix: '/' }`, so its not-found page answers every path outside the
// prefixed surfaces (/api/v1 keeps its JSON 404).
//
// Page routes come from WEB_MODULES: `(scope, deps) => void`, each calling the same services as
// the API and the CLI (docs/architecture.md, "Web surface").
import { createRequire } from 'node:module';
import path from 'node:path';
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.ts';
import type { ServiceContext } from '../../context.ts';
import type { Policy } from '../../policy/policy.ts';
import { ROOT_PLUGIN } from '../root.ts';
import { assetUrl, loadAssets, serveAssets } from './assets.ts';
import { webErrorHandler, webNotFound } from './errors.ts';
import { accountPages } from './pages/account.pages.ts';
import { homePages } from './pages/home.pages.ts';
import { editorPages } from './pages/editor.pages.ts';
import { learningPages } from './pages/learning.pages.ts';
import { explorePages } from './pages/explore.pages.ts';
import { managePages } from './pages/manage.pages.ts';
import { trashPages } from './pages/trash.pages.ts';
import type { AuthorizationServer } from '../authorization-server.ts';
import { oauthPages } from './pages/oauth.pages.ts';
import { tokenPages } from './pages/tokens.pages.ts';
import { csrfUserInfo } from './render.ts';
import { cookieOptions, CSRF_COOKIE, helmetOptions } from '../page-security.ts';
import { bindSessions } from './session.ts';
import { registerUploads } from './uploads.ts';
import { bindWebWrites } from './web-writes.ts';

export const WEB_PLUGIN = 'flashdeck-web';

/** Form bodies are small: a field is at most a deck's description or a card side. */
export const FORM_BODY_LIMIT = 1024 * 1024;

const HERE = import.meta.dirname;
export const VIEWS_DIR = path.join(HERE, 'views');
export const ASSETS_DIR = path.join(HERE, 'assets');
/** KaTeX's stylesheet and fonts, served by the service itself (no CDN): /assets/katex/katex.min.css. */
export const KATEX_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('katex/package.json')), 'dist');

/** What a page module is given. */
export interface WebDeps {
  readonly ctx: ServiceContext;
  readonly policy: Policy;
  readonly config: Pick<Config, 'signup' | 'publicUrl' | 'bodyLimitBytes'>;
  /** The OAuth authorization server, whose sign-in and consent these pages are. */
  readonly oauth: AuthorizationServer;
}

/** A module's pages: registered in the web scope (plain Fastify routes, HTML replies). */
export type WebModule = (scope: FastifyInstance, deps: WebDeps) => void;

/** Every page module, in order. Add yours here. */
const WEB_MODULES: WebModule[] = [homePages, accountPages, tokenPages, managePages, trashPages, explorePages, learningPages, editorPages, oauthPages];

export const webSurface = fp<WebDeps>(async (scope, { ctx, policy, config, oauth }) => {
  const assets = loadAssets(ASSETS_DIR);
  scope.removeAllContentTypeParsers();
  await scope.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  // multipart/form-data: files only where a route allows them (uploads.ts).
  await registerUploads(scope, FORM_BODY_LIMIT);
  scope.setErrorHandler(webErrorHandler);
  scope.setNotFoundHandler(webNotFound);
  // Pages compressed (a 100-entry activity page is ~46 KB of HTML, ~2 KB on the wire), in one call
  // up to 128 KB, sent with a Content-Length in one write: past the plugin's default (8 KB on a
  // 2-core machine) a page went through a brotli stream, chunk by chunk through the thread pool,
  // each chunk a wait for a core before the browser has the whole page (brotli at quality 4 is
  // about a millisecond of CPU for such a page either way). A page that shows a secret beside text
  // from the request (the new token) turns it off (`compress: false` on its route), so a
  // BREACH-style guess cannot read it from the sizes; CSRF tokens are salted anew on every page.
  // Our own assets are compressed once, at boot (assets.ts).
  await scope.register(compress, { threshold: 1024, encodings: ['br', 'gzip'], syncThreshold: 128 * 1024 });
  await scope.register(helmet, helmetOptions());
  await scope.register(cookie);
  await scope.register(csrf, {
    cookieKey: CSRF_COOKIE,
    cookieOpts: cookieOptions(ctx.publicUrl),
    // Tokens are bound to the session (or to "signed out"), so another session's token is refused
    // even by a browser that holds the same secret cookie.
    getUserInfo: csrfUserInfo,
    csrfOpts: { hmacKey: ctx.secrets.csrfKey, userInfo: true },
  });
  await scope.register(view, {
    engine: { eta: new Eta({ autoEscape: true }) },
    root: VIEWS_DIR,
    layout: 'layout.eta',
    viewExt: 'eta',
    // Compiled templates are kept (Eta's cache); nothing reloads them from disk at run time.
    production: true,
    // `it.asset('/assets/site.css')`: the URL with the file's hash, cached for a year (assets.ts).
    defaultContext: { apiDocsUrl: '/api/v1/docs', signupOpen: config.signup === 'open', asset: (urlPath: string) => assetUrl(assets, urlPath) },
  });
  serveAssets(scope, assets);
  await scope.register(fastifyStatic, {
    root: KATEX_DIR, prefix: '/assets/katex/', decorateReply: false, maxAge: '1d', index: false, list: false,
    allowedPath: (pathName) => pathName === '/katex.min.css' || pathName.startsWith('/fonts/'),
  });
  bindSessions(scope, ctx);
  // Before the pages: a route declaring `config.webWrite` gets its admission (web-writes.ts).
  bindWebWrites(scope, ctx, policy);
  const deps: WebDeps = { ctx, policy, config, oauth };
  for (const module of WEB_MODULES) module(scope, deps);
}, { name: WEB_PLUGIN, dependencies: [ROOT_PLUGIN], encapsulate: true, fastify: '5.x' });
