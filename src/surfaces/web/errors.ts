// The web surface's error and not-found pages: any error becomes a catalog error (toAppError, as
// for the API) and then an HTML page in the layout, with the status and headers of that error.
// 5xx pages say only that something went wrong; nothing about the failure leaves the server.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_CATALOG } from '../../errors.ts';
import { logFailure, toAppError, withErrorHeaders } from '../errors.ts';
import { HTML_TYPE, renderPage } from './render.ts';

/** What a person reads: the catalog's page wording, else by status (the error's own message for 4xx). */
function wording(error: AppError): { title: string; message: string } {
  const page = ERROR_CATALOG[error.code].page;
  if (page !== undefined) return { title: page.title, message: page.message ?? error.message };
  if (error.status >= 500) return { title: 'Something went wrong', message: 'The page could not be shown. Try again in a moment.' };
  if (error.status === 404) return { title: 'Not found', message: error.message };
  return { title: 'That did not work', message: error.message };
}

function toPageError(error: FastifyError, request: FastifyRequest): AppError {
  // @fastify/csrf-protection's refusals (403): no secret cookie, or a token that does not match it.
  if (error.code === 'FST_CSRF_MISSING_SECRET' || error.code === 'FST_CSRF_INVALID_TOKEN') {
    return new AppError('CSRF_REJECTED', 'Invalid CSRF token');
  }
  return toAppError(error, request);
}

export async function renderErrorPage(request: FastifyRequest, reply: FastifyReply, error: AppError): Promise<FastifyReply> {
  withErrorHeaders(reply, error);
  const { title, message } = wording(error);
  try {
    return await renderPage(request, reply, 'error', { title, message, code: error.code }, error.status);
  } catch (renderError) {
    request.log.error({ err: renderError }, 'error page failed to render');
    return reply.code(error.status).type(HTML_TYPE).send(`<!doctype html><title>${error.status}</title><p>${error.status}</p>`);
  }
}

export async function webErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const appError = toPageError(error, request);
  logFailure(request, error, appError);
  return renderErrorPage(request, reply, appError);
}

export async function webNotFound(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  return renderErrorPage(request, reply, new AppError('NOT_FOUND', 'No such page'));
}
