// CORS for the API (DECISIONS, "Browsers"): any origin, since it takes bearer tokens only and never
// cookies. Every response in the API's scope (404 and 405 included) carries
// `Access-Control-Allow-Origin: *` and the exposed headers; any OPTIONS request is answered as a
// preflight (204), with or without Access-Control-Request-Method. This is what @fastify/cors
// answered with these options, header for header, without its work per request (merging its
// options, reading `request.routeOptions` twice, joining the header lists: 2 µs of a deck read,
// docs/performance.md). Register before the routes, where @fastify/cors was.
import type { FastifyReply } from 'fastify';
import type { Api } from '../http.ts';

export interface ApiCorsOptions {
  readonly methods: readonly string[];
  readonly allowedHeaders: readonly string[];
  readonly exposedHeaders: readonly string[];
  /** Access-Control-Max-Age, seconds. */
  readonly maxAge: number;
}

export function registerApiCors(api: Api, options: ApiCorsOptions): void {
  const exposed = options.exposedHeaders.join(', ');
  const methods = options.methods.join(', ');
  const allowed = options.allowedHeaders.join(', ');
  const maxAge = String(options.maxAge);
  const preflight = (reply: FastifyReply): void => {
    reply.header('Access-Control-Allow-Methods', methods);
    reply.header('Access-Control-Allow-Headers', allowed);
    reply.header('Access-Control-Max-Age', maxAge);
    void reply.code(204).header('Content-Length', '0').send();
  };
  api.addHook('onRequest', (request, reply, done) => {
    reply.header('Access-Control-Allow-Origin', '*');
    reply.header('Access-Control-Expose-Headers', exposed);
    if (request.raw.method === 'OPTIONS') {
      preflight(reply);
      return;
    }
    done();
  });
  // OPTIONS on any path reaches a route (the hook above answers it first), hidden from the document.
  api.options('*', { schema: { hide: true } }, (_request, reply) => { preflight(reply); });
}
