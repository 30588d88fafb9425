// Two Ajv instances: bodies are validated strictly (no coercion, no defaults: the body a client
// sends is the body we hash for idempotency), query strings and headers with coercion.
//
// Every body validator (Fastify's, through bodyAjv.compile, and assertBody's) bounds its own work:
// an array longer than its schema's maxItems, or a string longer than its maxLength, is refused
// before Ajv looks at any item or runs any pattern; free-form values are bounded by the
// `x-json-limits` keyword before anything walks them; and only a body of the right shape is then
// read for strings that are not well-formed Unicode (lone surrogates, which no store can keep:
// they became U+FFFD, so the same payload changed the deck again).
import { Ajv, type ErrorObject, type KeywordDefinition, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { AppError } from './errors.ts';
import type { Static, TSchema } from 'typebox';

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

const compileBody = bodyAjv.compile.bind(bodyAjv);
bodyAjv.compile = ((schema: object, meta?: boolean) => {
  const validate = compileBody(schema, meta);
  return meta === true ? validate : withBoundedWork(schema, validate);
}) as typeof bodyAjv.compile;

/** Adds a keyword to body validation (schemas that use it must be compiled after). */
export function addBodyKeyword(definition: KeywordDefinition): void {
  bodyAjv.addKeyword(definition);
}

const NO_ERRORS: ErrorObject[] = [];

function withBoundedWork(schema: object, validate: ValidateFunction): ValidateFunction {
  const bounded = ((data: unknown) => {
    const oversized = errorsOf((found) => findOversized(schema, data, found));
    const errors = oversized.length > 0 ? oversized : validate(data) ? errorsOf((found) => findUnkeepable(data, found)) : validate.errors ?? [];
    bounded.errors = errors.length > 0 ? errors : null;
    return errors.length === 0;
  }) as ValidateFunction;
  return Object.assign(bounded, { schema: validate.schema, schemaEnv: validate.schemaEnv });
}

type SchemaNode = {
  type?: unknown; maxItems?: number; maxLength?: number; items?: unknown; properties?: Record<string, unknown>; anyOf?: unknown[];
};

/** Length in code points, as JSON Schema counts it; only counted when the UTF-16 length is over. */
function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let n = 0;
  for (const _ of text) if (++n > max) return true;
  return false;
}

/**
 * A walk's errors. It first walks only asking whether there is any (no paths written: a fifth of
 * an import's validation), and walks again writing them only then.
 */
function errorsOf(walk: (found: ErrorObject[] | null) => boolean): ErrorObject[] {
  if (!walk(null)) return NO_ERRORS;
  const found: ErrorObject[] = [];
  walk(found);
  return found;
}

/**
 * Arrays longer than their maxItems and strings longer than their maxLength, along the schema's
 * properties and items: found before Ajv runs, so that (with allErrors) it never validates each of
 * 100,000 cards, nor runs a pattern over a megabyte string (a pattern's backtracking stack can
 * overflow on one). An array over its limit is not looked into. With `found` null, whether there
 * is one; else each is written into `found` with its JSON pointer.
 */
function findOversized(schema: object, data: unknown, found: ErrorObject[] | null): boolean {
  const nodes: SchemaNode[] = [schema];
  const values: unknown[] = [data];
  // Where each pending value is, kept only when errors are written.
  const paths: Path[] = [null];
  for (let node = nodes.pop(); node !== undefined; node = nodes.pop()) {
    const value = values.pop();
    const path = found === null ? null : paths.pop() ?? null;
    for (const branch of node.anyOf ?? []) {
      nodes.push(branch as SchemaNode);
      values.push(value);
      if (found !== null) paths.push(path);
    }
    if (typeof value === 'string' && node.type === 'string' && node.maxLength !== undefined && longerThan(value, node.maxLength)) {
      if (found === null) return true;
      found.push({
        instancePath: pointer(path), schemaPath: '#/maxLength', keyword: 'maxLength', params: { limit: node.maxLength },
        message: `must NOT have more than ${node.maxLength} characters`,
      });
    } else if (Array.isArray(value) && node.type === 'array') {
      const items = node.items;
      if (node.maxItems !== undefined && value.length > node.maxItems) {
        if (found === null) return true;
        found.push({
          instancePath: pointer(path), schemaPath: '#/maxItems', keyword: 'maxItems', params: { limit: node.maxItems },
          message: `must NOT have more than ${node.maxItems} items`,
        });
      } else if (typeof items === 'object' && items !== null) {
        for (let i = value.length - 1; i >= 0; i--) {
          nodes.push(items);
          values.push(value[i]);
          if (found !== null) paths.push({ parent: path, segment: i });
        }
      }
    } else if (isRecord(value) && node.type === 'object' && node.properties) {
      const properties = node.properties;
      const keys = Object.keys(properties);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        if (!Object.hasOwn(value, key)) continue;
        nodes.push(properties[key] as SchemaNode);
        values.push(value[key]);
        if (found !== null) paths.push({ parent: path, segment: key, raw: true });
      }
    }
  }
  return found !== null && found.length > 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const pointerSegment = (key: string | number) => String(key).replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Where a value is in a body, as a chain of segments: the JSON pointer is only written for a value
 * that has an error (writing one per value cost about a millisecond per 250-card import).
 */
type Path = { readonly parent: Path; readonly segment: string | number; readonly raw?: boolean } | null;

/** The JSON pointer of `path`; a `raw` segment (a schema's property name) is written as it is. */
function pointer(path: Path): string {
  let out = '';
  for (let p = path; p !== null; p = p.parent) {
    out = `/${p.raw === true ? String(p.segment) : typeof p.segment === 'number' ? String(p.segment) : pointerSegment(p.segment.toWellFormed())}${out}`;
  }
  return out;
}


/**
 * A property named with one backslash (`"\\"`, `"\u005c"`) as JSON text: once V8's JSON.parse has
 * read such a key (Node 24.21, V8 13.6), it reads every later one-character key written as an escape
 * (`"\u00e9"`, `"\n"`, `"\""`) as a backslash, in the whole process. Nothing with such a key is
 * stored (malformedStrings refuses it), so stored JSON never does this; JSON text from outside must be
 * checked with this before JSON.parse. Only a real key can match: a string cannot hold a raw quote.
 */
export const BACKSLASH_KEY = /[{,]\s*"\\(?:\\|u005[cC])"\s*:/;

/**
 * Text that cannot be kept as sent: strings and property names that are not well-formed UTF-16 (a
 * lone surrogate cannot be stored or sent as UTF-8), and property names of one backslash
 * (BACKSLASH_KEY). Run on a body that passed its schema, so its depth is bounded. With `found`
 * null, whether there is any; else each is written into `found` with its JSON pointer.
 */
function findUnkeepable(data: unknown, found: ErrorObject[] | null): boolean {
  const report = (path: Path, message: string) => { found?.push({ instancePath: pointer(path), schemaPath: '#', keyword: 'wellFormed', params: {}, message }); };
  const values: unknown[] = [data];
  // Where each pending value is, kept only when errors are written.
  const paths: Path[] = [null];
  while (values.length > 0) {
    const value = values.pop();
    const path = found === null ? null : paths.pop() ?? null;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) {
        if (found === null) return true;
        report(path, 'must be well-formed Unicode text (it holds a lone surrogate)');
      }
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        values.push(value[i]);
        if (found !== null) paths.push({ parent: path, segment: i });
      }
    } else if (isRecord(value)) {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        const childPath: Path = found === null ? null : { parent: path, segment: key };
        const problem = key === '\\' ? 'is a property name of one backslash, which is not accepted'
          : key.isWellFormed() ? null : 'is a property name that is not well-formed Unicode (it holds a lone surrogate)';
        if (problem !== null) {
          if (found === null) return true;
          report(childPath, problem);
        }
        values.push(value[key]);
        if (found !== null) paths.push(childPath);
      }
    }
  }
  return found !== null && found.length > 0;
}

export interface JsonLimits {
  /** Nesting levels, the value itself being the first */
  maxDepth: number;
  /** Object properties plus array items, at every depth */
  maxMembers: number;
  /** Bytes of its compact UTF-8 JSON form */
  maxBytes: number;
}

/**
 * Why a free-form JSON value breaks its limits, or null. Iterative and stops at the first limit
 * passed, so its cost is bounded by the limits, never by the value (which may be nested 100,000 deep).
 */
export function jsonLimitsProblem(value: unknown, limits: JsonLimits): string | null {
  let members = 0;
  let chars = 0;
  const stack: [unknown, number][] = [[value, 1]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [node, depth] = entry;
    if (typeof node === 'string') chars += node.length;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limits.maxDepth) return `must be nested at most ${limits.maxDepth} levels deep`;
    const entries: unknown[] = Array.isArray(node) ? node : Object.values(node);
    members += entries.length;
    if (members > limits.maxMembers) return `must have at most ${limits.maxMembers} members (object properties and array items at every depth)`;
    if (!Array.isArray(node)) for (const key of Object.keys(node)) chars += key.length;
    // UTF-8 takes at least a byte per UTF-16 unit: past this, the JSON form is too large too.
    if (chars > limits.maxBytes) break;
    for (const entry of entries) stack.push([entry, depth + 1]);
  }
  // Bounded now (depth, members, text), so serialising is cheap and cannot overflow the stack.
  if (chars > limits.maxBytes || Buffer.byteLength(JSON.stringify(value)) > limits.maxBytes) {
    return `must be at most ${limits.maxBytes} bytes as JSON`;
  }
  return null;
}

// "x-json-limits": {maxDepth, maxMembers, maxBytes} on a free-form value (card templateData).
addBodyKeyword({
  keyword: 'x-json-limits',
  schemaType: 'object',
  errors: true,
  validate: function checkJsonLimits(limits: JsonLimits, data: unknown): boolean {
    const problem = jsonLimitsProblem(data, limits);
    (checkJsonLimits as { errors?: Partial<ErrorObject>[] }).errors = problem === null ? [] : [{ keyword: 'x-json-limits', message: problem, params: { ...limits } }];
    return problem === null;
  },
});

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

/**
 * The most problems an answer lists: a body of 100,000 unknown properties (1.3 MB) made a 5.8 MB
 * answer listing each one. The first problems say what to fix; `details.field` is the first.
 */
export const MAX_REPORTED_ERRORS = 100;

/** The distinct problems, in order, at most MAX_REPORTED_ERRORS of them. */
function dedupe(list: { field: string; message: string }[]): { field: string; message: string }[] {
  const seen = new Set<string>();
  const kept: { field: string; message: string }[] = [];
  for (const e of list) {
    const key = `${e.field}\u0000${e.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(e);
    if (kept.length === MAX_REPORTED_ERRORS) break;
  }
  return kept;
}

const compiled = new WeakMap<object, ValidateFunction>();

/** Validates a body produced outside Fastify's pipeline (a parsed markdown deck). */
export function assertBody<S extends TSchema>(schema: S, value: unknown): Static<S> {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = bodyAjv.compile(schema);
    compiled.set(schema, validate);
  }
  if (!validate(value)) throw bodyValidationError(validate.errors ?? []);
  return value as Static<S>;
}
