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
import { jsonErrorHandler, jsonNotFound } from './errors.ts';

export const ROOT_PLUGIN = 'flashdeck-root';

export const rootPlugin = fp((app, _options, done) => {
  app.addHook('onRequest', (request, reply, next) => {
    reply.header('X-Request-Id', request.id);
    next();
  });
  app.setErrorHandler(jsonErrorHandler);
  app.setNotFoundHandler(jsonNotFound);
  done();
}, { name: ROOT_PLUGIN, fastify: '5.x' });
