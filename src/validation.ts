// Two Ajv instances: bodies are validated strictly (no coercion, no defaults: the body a client
// sends is the body we hash for idempotency), query strings and headers with coercion.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { AppError } from './errors.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: coerce,
    removeAdditional: false,
  });
  addFormats(ajv);
  return ajv;
}

export const bodyAjv = makeAjv(false);
export const queryAjv = makeAjv(true);

/** `/cards/3/frontMedia/imageUrl` -> `cards[3].frontMedia.imageUrl` */
export function fieldPath(instancePath: string, missingProperty?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (missingProperty) parts.push(missingProperty);
  let out = '';
  for (const part of parts) {
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

function describe(error: ErrorObject): { field: string; message: string } {
  const missing = error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : undefined;
  const extra = error.keyword === 'additionalProperties' ? (error.params as { additionalProperty: string }).additionalProperty : undefined;
  const field = fieldPath(error.instancePath, missing ?? extra) || 'body';
  let message = error.message ?? 'is invalid';
  if (extra) message = 'is not an allowed property';
  if (error.keyword === 'pattern' && /imageUrl$|thumbnail$/.test(field)) {
    message = field.endsWith('thumbnail') ? 'must be an https:// URL' : 'must be an https:// URL or a root-relative path';
  }
  if (error.keyword === 'enum') {
    message = `must be one of ${((error.params as { allowedValues: unknown[] }).allowedValues).map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return { field, message };
}

/**
 * Ajv's errors for a body, as the catalog error a client can branch on: too many cards is
 * TOO_MANY_CARDS, anything else SCHEMA_INVALID with the offending field paths in details.
 */
export function bodyValidationError(errors: ErrorObject[]): AppError {
  const tooMany = errors.find((e) => e.keyword === 'maxItems' && e.instancePath === '/cards');
  if (tooMany) {
    return new AppError('TOO_MANY_CARDS', `cards: at most ${(tooMany.params as { limit: number }).limit} cards per request and per deck`, { field: 'cards' });
  }
  // anyOf branches (string or null) repeat one problem several times: keep the informative one.
  const useful = errors.filter((e) => e.keyword !== 'anyOf' && !(e.keyword === 'type' && (e.params as { type: string }).type === 'null'));
  const described = dedupe((useful.length > 0 ? useful : errors).map(describe));
  const first = described[0] ?? { field: 'body', message: 'is invalid' };
  return new AppError('SCHEMA_INVALID', `${first.field} ${first.message}`, { field: first.field, errors: described });
}

export function queryValidationError(errors: ErrorObject[], part: string): AppError {
  const described = dedupe(errors.map(describe));
  const first = described[0] ?? { field: part, message: 'is invalid' };
  const where = part === 'querystring' ? 'query parameter' : part === 'headers' ? 'header' : 'path parameter';
  return new AppError('BAD_REQUEST', `${where} ${first.field} ${first.message}`, { field: first.field, errors: described });
}

function dedupe(list: { field: string; message: string }[]): { field: string; message: string }[] {
  const seen = new Set<string>();
  return list.filter((e) => {
    const key = `${e.field}\u0000${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const compiled = new WeakMap<object, ValidateFunction>();

/** Validates a body produced outside Fastify's pipeline (a parsed markdown deck). */
export function assertBody<T>(schema: object, value: unknown): T {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = bodyAjv.compile(schema);
    compiled.set(schema, validate);
  }
  if (!validate(value)) throw bodyValidationError(validate.errors ?? []);
  return value as T;
}
