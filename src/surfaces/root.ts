// What the root instance keeps, for requests that reach no surface's scope: the X-Request-Id
// header on every response, and the JSON envelope for errors and unknown paths outside every
// surface (/healthz, the .well-known documents, a path nobody serves). Each surface registers
// inside its own scope its parsers, its error handler and its not-found handler, so nothing here
// reaches it except these. `frameworkErrors` (./errors.ts) is given to Fastify at construction.
//
// A surface without a path prefix of its own (the web pages) takes over the not-found handler for
// everything outside the prefixed surfaces by registering with `{ prefix: '/' }` (docs/architecture.md).
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
