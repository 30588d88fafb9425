// The web surface's error and not-found pages: any error becomes a catalog error (toAppError, as
// for the API) and then an HTML page in the layout, with the status and headers of that error.
// 5xx pages say only that something went wrong; nothing about the failure leaves the server.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import { logFailure, toAppError } from '../errors.ts';
import { HTML_TYPE, renderPage } from './render.ts';

/** What a person reads for each kind of refusal (the error's own message for the rest of 4xx). */
function wording(error: AppError): { title: string; message: string } {
  switch (error.code) {
    case 'CSRF_REJECTED':
      return { title: 'This form has expired', message: 'The form was not sent from this site, or your session changed since it was shown. Go back, reload the page and try again.' };
    case 'NOT_FOUND':
      return { title: 'Page not found', message: 'There is no page at this address.' };
    case 'RATE_LIMITED':
      return { title: 'Too many requests', message: error.message };
    case 'SERVICE_UNAVAILABLE':
      // A backing service down, or more password checks at once than this server takes.
      return { title: 'Temporarily unavailable', message: 'Flashdeck is busy or cannot reach its storage just now. Try again in a few seconds.' };
    case 'PAYLOAD_TOO_LARGE':
      return { title: 'Too much to send', message: 'The form holds more than this server accepts.' };
    default:
      break;
  }
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
  for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
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
