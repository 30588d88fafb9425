// What the root instance keeps, for requests that reach no surface's scope: the X-Request-Id
// header on every response, and the JSON envelope for errors and unknown paths outside every
// surface (/healthz, the .well-known documents, a path nobody serves). Each surface registers
// inside its own scope its parsers, its error handler and its not-found handler, so nothing here
// reaches it except these. `frameworkErrors` (./errors.ts) is given to Fastify at construction.
//
// The web pages (surfaces/web) take over the not-found handler for everything outside the prefixed
// surfaces by registering with `{ prefix: '/' }` (docs/architecture.md): an unknown path gets their
// HTML 404 page; the root's JSON handlers serve only its own routes (/healthz, .well-known).
import fp from 'fastify-plugin';
import { drainUnreadBody } from './connections.ts';
import { jsonErrorHandler, jsonNotFound } from './errors.ts';

export const ROOT_PLUGIN = 'flashdeck-root';

export interface RootOptions {
  /** How long the unread rest of a body is read and dropped after an error answered it (connections.ts). */
  lingerMs: number;
}

export const rootPlugin = fp<RootOptions>((app, { lingerMs }, done) => {
  app.addHook('onRequest', (request, reply, next) => {
    reply.header('X-Request-Id', request.id);
    next();
  });
  // Every surface's errors: one answered before its body was read (413, 401 on an upload) keeps
  // reading it, so the client reads the answer rather than a reset.
  app.addHook('onError', (request, reply, _error, next) => {
    drainUnreadBody(request, reply, lingerMs);
    next();
  });
  app.setErrorHandler(jsonErrorHandler);
  app.setNotFoundHandler(jsonNotFound);
  done();
}, { name: ROOT_PLUGIN, fastify: '5.x' });
