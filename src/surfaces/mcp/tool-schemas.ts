// A tool's arguments and result, derived from its API route as registered (src/surfaces/api/
// api.surface.ts `routes`): the route's path parameters, query, headers (`If-Match` -> `ifMatch`,
// `Idempotency-Key` -> `idempotencyKey`) and body fields, flattened into one object (DECISIONS
// "MCP"), validated by the same schemas with the same Ajv instances as the API, so the same input
// gets the same error code and field path on both surfaces, and the two cannot drift.
import type { ValidateFunction } from 'ajv';
import { AppError } from '../../errors.ts';
import { bodyAjv, bodyValidationError, queryAjv, queryValidationError } from '../../validation.ts';
import type { ApiRoute } from '../api/api.surface.ts';

type JsonSchema = Record<string, unknown>;
type Content = Partial<Record<string, { schema: JsonSchema }>>;

/** Header name -> argument name. */
const HEADER_ARGS: Readonly<Partial<Record<string, string>>> = { 'if-match': 'ifMatch', 'idempotency-key': 'idempotencyKey' };

/** The header arguments' descriptions, in MCP's terms (the API's speak of headers). */
const HEADER_DESCRIPTIONS: Readonly<Partial<Record<string, string>>> = {
  ifMatch: 'The deck version you read (get_deck `version`): the write is refused with VERSION_MISMATCH if the deck changed since. Optional.',
  idempotencyKey: '8 to 128 characters (e.g. a UUID), new per request, the same on retry: a retry returns the first result and does nothing again. Kept 24 hours.',
};

/** The markdown alternative of an import body (the API takes it as a text/markdown body). */
const MARKDOWN_ARG = 'markdown';
/** The CSV alternative of an import body (the API takes it as a text/csv body). */
const CSV_ARG = 'csv';

export interface ToolArguments {
  /** Path and query parameters (defaults applied, as the API's validator applies them). */
  readonly params: Record<string, unknown>;
  readonly query: Record<string, unknown>;
  readonly ifMatch: string | undefined;
  readonly idempotencyKey: string | undefined;
  /** The body as the API route would get it: an object, a markdown text, `{csv}` for CSV, or undefined. */
  readonly body: unknown;
}

export interface ToolSchemas {
  /** What tools/list shows. */
  readonly inputSchema: JsonSchema & { type: 'object' };
  /** The success body (tools/list). */
  readonly outputSchema: JsonSchema & { type: 'object' };
  /** The route's own response schemas (2xx and error statuses): its error codes, for the description. */
  readonly responses: Readonly<Record<string, JsonSchema>>;
  /** Splits and validates a call's arguments; throws the API's catalog error for the same input. */
  readonly parse: (args: Record<string, unknown>) => ToolArguments;
}

function properties(schema: unknown): JsonSchema {
  return ((schema as { properties?: JsonSchema } | undefined)?.properties) ?? {};
}

function required(schema: unknown): string[] {
  const list = (schema as { required?: string[] } | undefined)?.required ?? [];
  // A parameter with a default is optional to the caller (list_decks limit, import mode).
  const props = properties(schema);
  return list.filter((name) => (props[name] as { default?: unknown } | undefined)?.default === undefined);
}

/** The JSON body schema of a route: its body, or the application/json one of a content map. */
function bodySchema(route: ApiRoute): JsonSchema | null {
  const body = route.schema.body as JsonSchema | undefined;
  if (body === undefined) return null;
  const content = (body as { content?: Content }).content;
  return content === undefined ? body : content['application/json']?.schema ?? null;
}

function responseSchemas(route: ApiRoute): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [status, schema] of Object.entries((route.schema.response ?? {}) as Record<string, JsonSchema>)) {
    const content = (schema as { content?: Content }).content;
    const json = content === undefined ? schema : content['application/json']?.schema;
    if (json !== undefined) out[status] = json;
  }
  return out;
}

/** Keywords whose values are maps of names to schemas: their keys are names, never keywords. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** `schema` without the keywords in `drop` (names in `properties` and the like are kept). */
function withoutKeywords(schema: unknown, drop: (keyword: string) => boolean): unknown {
  if (Array.isArray(schema)) return schema.map((item) => withoutKeywords(item, drop));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema) as [string, unknown][]) {
    if (drop(key)) continue;
    out[key] = SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, sub]) => [name, withoutKeywords(sub, drop)]))
      : withoutKeywords(value, drop);
  }
  return out;
}

/**
 * A schema as a client sees it: plain JSON (TypeBox's own marks are not enumerable), without our
 * validator-only keywords (`x-json-limits`, `x-deck-tags`: their limits are in the descriptions)
 * and without `examples` (documentation for the OpenAPI reader; tools/list stays small).
 */
export function publicSchema(schema: unknown): JsonSchema {
  return withoutKeywords(JSON.parse(JSON.stringify(schema)), (key) => key.startsWith('x-') || key === 'examples') as JsonSchema;
}

/** The JSON types a schema allows, and nothing else (a nullable enum: its values' type and null). */
export function typeOnly(schema: unknown): JsonSchema {
  const types = new Set<string>();
  const collect = (node: unknown): boolean => {
    const n = node as { type?: unknown; anyOf?: unknown[]; enum?: unknown[]; const?: unknown } | null;
    if (n === null || typeof n !== 'object') return false;
    if (typeof n.type === 'string') types.add(n.type);
    else if (Array.isArray(n.type)) for (const t of n.type) types.add(String(t));
    else if (Array.isArray(n.anyOf)) return n.anyOf.every(collect);
    else if (Array.isArray(n.enum) || 'const' in n) {
      for (const v of n.enum ?? [n.const]) types.add(v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v);
    } else return false;
    return true;
  };
  if (!collect(schema)) return {};
  const list = [...types];
  // anyOf single types, never a `type` array: clients that map tool schemas onto a single-type
  // dialect (Gemini's function declarations) refuse arrays, and the Inspector flags them.
  return list.length === 1 ? { type: list[0] } : { anyOf: list.map((type) => ({ type })) };
}

/**
 * Keywords that bound what a client may send, not what it reads back: a result's schema keeps its
 * shape and types without them, so every tool fits in tools/list's 64 KB.
 */
export const OUTPUT_DROPPED: ReadonlySet<string> = new Set([
  'additionalProperties', 'minLength', 'maxLength', 'pattern', 'format', 'minItems', 'maxItems', 'minimum', 'maximum', 'minProperties', 'maxProperties',
]);

/** Levels of result fields tools/list spells out; deeper fields are given by their type alone. */
export const OUTPUT_LEVELS = 2;

/** `schema` with the fields below `levels` of properties given by type alone. */
export function shallowSchema(schema: unknown, levels: number): unknown {
  if (Array.isArray(schema)) return schema.map((item) => shallowSchema(item, levels));
  if (schema === null || typeof schema !== 'object') return schema;
  if (levels < 0) return typeOnly(schema);
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema) as [string, unknown][]) {
    out[key] = key === 'properties' && value !== null && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, sub]) => [name, shallowSchema(sub, levels - 1)]))
      : shallowSchema(value, levels);
  }
  return out;
}

/**
 * A result schema as tools/list shows it: without descriptions, and spelled out to two levels of
 * fields (a deck's cards and their fields; not what is inside a card's extras or media, which are
 * given by type). 27 tools with every result spelled out whole would not fit the list's 64 KB
 * (DECISIONS "MCP"); what each field holds is in the API's documentation.
 */
function outputSchemaOf(schema: unknown): JsonSchema {
  return shallowSchema(withoutKeywords(publicSchema(schema), (key) => key === 'description' || OUTPUT_DROPPED.has(key)), OUTPUT_LEVELS - 1) as JsonSchema;
}

/**
 * An argument's schema as tools/list shows it: its own description, none inside it (a card's
 * fields are described once, in the tool's description), so the list stays under its 64 KB.
 */
function argumentSchemaOf(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const { description, ...rest } = schema as JsonSchema;
  const inner = withoutKeywords(rest, (key) => key === 'description') as JsonSchema;
  return description === undefined ? inner : { ...inner, description };
}



/**
 * What a successful call returns (DECISIONS: `outputSchema` describes the success body only; an
 * error is a text result carrying the API's envelope): the route's 2xx response, or `anyOf` its
 * distinct 2xx responses.
 */
function successSchema(responses: Readonly<Record<string, JsonSchema>>): JsonSchema & { type: 'object' } {
  const distinct = new Map<string, JsonSchema>();
  for (const [status, schema] of Object.entries(responses)) {
    if (!status.startsWith('2')) continue;
    const plain = outputSchemaOf(schema);
    distinct.set(JSON.stringify(plain), plain);
  }
  const successes = [...distinct.values()];
  if (successes.length === 0) throw new Error('an API route without a success response cannot be a tool');
  return { type: 'object', ...(successes.length === 1 ? successes[0] : { anyOf: successes }) };
}

const compiled = new WeakMap<object, ValidateFunction>();

function validator(ajv: typeof bodyAjv, schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

function argumentError(errors: Parameters<typeof queryValidationError>[0]): AppError {
  const error = queryValidationError(errors, 'querystring');
  return new AppError('BAD_REQUEST', error.message.replace(/^query parameter/, 'argument'), error.details);
}

/**
 * The schemas of a tool standing for `route`. `requiredArgs` are arguments the tool requires though
 * the API does not (append_cards' idempotencyKey); `markdown` adds the import's markdown argument.
 */
export function toolSchemas(
  route: ApiRoute, options: { requiredArgs?: readonly string[]; markdown?: string; csv?: string; output?: JsonSchema } = {},
): ToolSchemas {
  const params = route.schema.params;
  const query = route.schema.querystring;
  const headers = route.schema.headers;
  const body = bodySchema(route);
  const markdown = options.markdown !== undefined;

  // The arguments that are not body fields, validated as the API validates its path, query and headers.
  const headerProps: JsonSchema = {};
  for (const [header, schema] of Object.entries(properties(headers))) {
    const arg = HEADER_ARGS[header];
    if (arg !== undefined) headerProps[arg] = { ...(schema as JsonSchema), description: HEADER_DESCRIPTIONS[arg] };
  }
  const nonBody: JsonSchema = {
    type: 'object',
    properties: { ...properties(params), ...properties(query), ...headerProps },
    required: [...((params as { required?: string[] } | undefined)?.required ?? []), ...((query as { required?: string[] } | undefined)?.required ?? []),
      ...(options.requiredArgs ?? [])],
    // Without a body, any other argument is refused here; with one, the body's schema refuses it.
    additionalProperties: body !== null || markdown,
  };
  const nonBodyNames = new Set(Object.keys(nonBody.properties as JsonSchema));

  const bodyProps = properties(body);
  const inputProps: JsonSchema = { ...(nonBody.properties as JsonSchema), ...bodyProps };
  if (markdown) inputProps[MARKDOWN_ARG] = { type: 'string', minLength: 1, description: options.markdown };
  if (markdown && options.csv !== undefined) inputProps[CSV_ARG] = { type: 'string', minLength: 1, description: options.csv };
  const inputRequired = [
    ...required(params), ...required(query), ...(options.requiredArgs ?? []),
    // The import takes either deck and cards or markdown: neither is required by itself.
    ...(markdown ? [] : required(body)),
  ];
  const inputSchema = publicSchema({
    type: 'object',
    properties: Object.fromEntries(Object.entries(inputProps).map(([name, schema]) => [name, argumentSchemaOf(schema)])),
    ...(inputRequired.length > 0 ? { required: inputRequired } : {}),
    additionalProperties: false,
  }) as JsonSchema & { type: 'object' };

  const responses = responseSchemas(route);
  // A route whose success is no JSON object (204, a markdown document) gives the tool's own.
  const outputSchema = options.output === undefined ? successSchema(responses) : { type: 'object' as const, ...outputSchemaOf(options.output) };

  return {
    inputSchema,
    outputSchema,
    responses,
    parse(args) {
      const picked: Record<string, unknown> = {};
      const rest: Record<string, unknown> = {};
      const hasBody = body !== null || markdown;
      for (const [name, value] of Object.entries(args)) (nonBodyNames.has(name) || !hasBody ? picked : rest)[name] = value;
      const validateArgs = validator(queryAjv, nonBody);
      if (!validateArgs(picked)) throw argumentError(validateArgs.errors ?? []);
      const split = (schema: unknown) => Object.fromEntries(Object.keys(properties(schema)).filter((k) => k in picked).map((k) => [k, picked[k]]));
      const parsed = {
        params: split(params),
        query: split(query),
        ifMatch: picked.ifMatch as string | undefined,
        idempotencyKey: picked.idempotencyKey as string | undefined,
      };
      if (markdown && MARKDOWN_ARG in rest) {
        const { [MARKDOWN_ARG]: text, ...others } = rest;
        if (typeof text !== 'string' || text.trim() === '') throw new AppError('BAD_REQUEST', 'markdown must be a non-empty deck markdown document', { field: MARKDOWN_ARG });
        const extra = Object.keys(others).at(0);
        if (extra !== undefined) throw new AppError('SCHEMA_INVALID', `${extra} cannot be given with markdown: send either deck and cards, or markdown`, { field: extra });
        return { ...parsed, body: text };
      }
      if (markdown && options.csv !== undefined && CSV_ARG in rest) {
        const { [CSV_ARG]: text, ...others } = rest;
        if (typeof text !== 'string' || text.trim() === '') throw new AppError('BAD_REQUEST', 'csv must be a non-empty CSV document', { field: CSV_ARG });
        const extra = Object.keys(others).at(0);
        if (extra !== undefined) throw new AppError('SCHEMA_INVALID', `${extra} cannot be given with csv: send either deck and cards, markdown, or csv`, { field: extra });
        // As the API hashes a text/csv body: CSV is not the markdown document of the same text.
        return { ...parsed, body: { csv: text } };
      }
      if (body === null) return { ...parsed, body: undefined };
      const validateBody = validator(bodyAjv, body);
      if (!validateBody(rest)) throw bodyValidationError(validateBody.errors ?? []);
      return { ...parsed, body: rest };
    },
  };
}

/**
 * The schemas of a tool whose arguments are its own, not an API route's (`search {query}` and
 * `fetch {id}`, the shape ChatGPT's connectors require): `route` gives the scope and error codes.
 */
export function ownToolSchemas(route: ApiRoute, input: JsonSchema & { type: 'object' }, output: JsonSchema): ToolSchemas {
  return {
    inputSchema: publicSchema(input) as JsonSchema & { type: 'object' },
    outputSchema: { type: 'object', ...outputSchemaOf(output) },
    responses: responseSchemas(route),
    parse(args) {
      const validate = validator(queryAjv, input);
      const copy = { ...args };
      if (!validate(copy)) throw argumentError(validate.errors ?? []);
      return { params: {}, query: copy, ifMatch: undefined, idempotencyKey: undefined, body: undefined };
    },
  };
}
