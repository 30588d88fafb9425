// The headers and cookies of the web pages (DECISIONS "Web pages"): a Content-Security-Policy with
// no inline script and no third-party origin, frame-ancestors 'none', nosniff, Referrer-Policy
// same-origin; cookies HttpOnly, SameSite=Lax, Secure when PUBLIC_URL is https.
import type { FastifyHelmetOptions } from '@fastify/helmet';
import type { CookieSerializeOptions } from '@fastify/cookie';

export const SESSION_COOKIE = 'flashdeck_session';
export const CSRF_COOKIE = 'flashdeck_csrf';

export interface CspOptions {
  /**
   * `style-src-attr 'unsafe-inline'`: KaTeX writes its layout into style attributes, so a page
   * showing rendered LaTeX (the learning view, the editor's preview) needs it. Style attributes
   * cannot run script; elements and scripts stay as strict as everywhere else.
   */
  readonly styleAttributes?: boolean;
  /** Images from any https origin (card media: `imageUrl` may be any https URL). */
  readonly httpsImages?: boolean;
}

/** The CSP directives of a page; every page gets `cspDirectives()` unless its route asks for more. */
export function cspDirectives(options: CspOptions = {}): Record<string, string[]> {
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'"],
    'style-src-attr': [options.styleAttributes ? "'unsafe-inline'" : "'none'"],
    'img-src': options.httpsImages ? ["'self'", 'data:', 'https:'] : ["'self'", 'data:'],
    'font-src': ["'self'"],
    'connect-src': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    'base-uri': ["'none'"],
    'object-src': ["'none'"],
  };
}

/** A Content-Security-Policy header value from directives. */
export function cspHeader(directives: Record<string, string[]>): string {
  return Object.entries(directives).map(([name, values]) => `${name} ${values.join(' ')}`).join('; ');
}

/** The policies helmetOptions() sends on every page, named once for pageSecurityHeaders too. */
const REFERRER_POLICY = 'same-origin';
const FRAME_ACTION = 'deny';
const RESOURCE_POLICY = 'same-origin';

/**
 * What helmetOptions() sends on every page, for the HTML responses served outside the web
 * surface's helmet: oidc-provider's error page, and the API's interactive docs and the files they
 * load (Swagger UI runs no inline script and loads nothing from elsewhere, so the pages' own
 * policy fits it as it is).
 */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': cspHeader(cspDirectives()),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': REFERRER_POLICY,
  'X-Frame-Options': FRAME_ACTION.toUpperCase(),
  'Cross-Origin-Resource-Policy': RESOURCE_POLICY,
});

/**
 * A route's own helmet options, for a page that needs more than the default CSP:
 * `scope.get('/decks/:deckId', { helmet: pageHelmet({ styleAttributes: true, httpsImages: true }) }, ...)`.
 */
export function pageHelmet(options: CspOptions): FastifyHelmetOptions {
  return { contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(options) } };
}

export function helmetOptions(): FastifyHelmetOptions {
  return {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives() },
    referrerPolicy: { policy: REFERRER_POLICY },
    frameguard: { action: FRAME_ACTION },
    // Pages are same-origin only; the API has its own CORS policy in its scope.
    crossOriginResourcePolicy: { policy: RESOURCE_POLICY },
    crossOriginEmbedderPolicy: false,
    // HSTS only makes sense over https, which the operator's proxy terminates.
    strictTransportSecurity: false,
  };
}

export function cookieOptions(publicUrl: string, maxAgeSeconds?: number): CookieSerializeOptions {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: publicUrl.startsWith('https:'),
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}
