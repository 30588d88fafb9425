// The OpenAPI document as client generators (openapi-typescript, @hey-api) read it: named shapes in
// components.schemas ($ref instead of one copy per operation), the response headers each response
// carries, the scope of each operation as OAuth2 scopes in `security`, and a real description for
// every response. Applied once to the document @fastify/swagger builds from the route schemas.
import type { TSchema } from 'typebox';

type Json = Record<string, unknown>;

/** Headers documented once (components.headers) and referenced per response. */
export const RESPONSE_HEADERS: Record<string, Json> = {
  'X-Request-Id': { description: 'Id of this request, also in the activity log', schema: { type: 'string' } },
  RateLimit: { description: 'IETF draft: the window nearest to exhaustion, e.g. `"minute";r=59;t=42`', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'IETF draft: `"minute";q=60;w=60, "day";q=2000;w=86400`', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before retrying (integer, at least 1)', schema: { type: 'integer', minimum: 1 } },
  'WWW-Authenticate': { description: 'Bearer challenge naming the protected-resource metadata (`resource_metadata`), with `error="invalid_token"` or `error="insufficient_scope", scope="..."`', schema: { type: 'string' } },
  'Idempotent-Replayed': { description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
  ETag: { description: 'The deck version as an entity tag (`"<version>"`; weak, `W/"..."`, when the body is compressed); send it as If-None-Match (304) or If-Match', schema: { type: 'string' } },
  Allow: { description: 'Methods this path takes', schema: { type: 'string' } },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Which headers a response of this status carries, for an operation with a token or not. */
function headersFor(status: number, authenticated: boolean, idempotent: boolean, etag: boolean): Json {
  const names = ['X-Request-Id'];
  if (authenticated && status !== 401) names.push('RateLimit', 'RateLimit-Policy');
  if (status === 401 || status === 403) names.push('WWW-Authenticate');
  if (status === 429 || status === 503 || (status === 409 && idempotent)) names.push('Retry-After');
  if (idempotent && status >= 200 && status < 300) names.push('Idempotent-Replayed');
  if (etag && (status === 200 || status === 304)) names.push('ETag');
  if (status === 405) names.push('Allow');
  return Object.fromEntries(names.map((n) => [n, ref(n)]));
}

/** Named shapes: an inline schema equal to one of these becomes a $ref to it. */
export type NamedSchemas = Record<string, TSchema>;

/** Key-sorted JSON of a schema, without its examples (swagger moves a response's to the media type). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v as Json).filter(([k]) => k !== 'examples' && k !== 'example').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v));
}

/** Replaces, depth first, every node equal to a named schema with a $ref (bounded: the document is ours). */
function referenceNamed(node: unknown, byText: Map<string, string>, depth = 0): unknown {
  if (node === null || typeof node !== 'object' || depth > 64) return node;
  const name = byText.get(canonical(node));
  if (name !== undefined) return { $ref: `#/components/schemas/${name}` };
  if (Array.isArray(node)) return node.map((item) => referenceNamed(item, byText, depth + 1));
  return Object.fromEntries(Object.entries(node as Json).map(([k, v]) => [k, referenceNamed(v, byText, depth + 1)]));
}

/**
 * A 200 served as JSON or as markdown or CSV by Accept: generated clients would type its data as
 * `Deck | string`. The JSON stays the documented content; the text types move to
 * `x-alternative-content` (served by Accept, and documented for typing on a path of their own).
 */
function alternativeContent(response: Json | undefined): void {
  const content = response?.content as Record<string, unknown> | undefined;
  if (response === undefined || content === undefined || !('application/json' in content)) return;
  const alternatives = Object.entries(content).filter(([type]) => type !== 'application/json');
  if (alternatives.length === 0) return;
  response.content = { 'application/json': content['application/json'] };
  response['x-alternative-content'] = Object.fromEntries(alternatives);
}

export interface OperationFacts {
  /** Scope the operation needs (null: any token; absent: no token). */
  scope?: string | null;
  /** A second scope the operation needs as well (copying a public deck also writes a deck). */
  also?: string;
  idempotent: boolean;
  etag: boolean;
}

/**
 * Shapes the document: `named` into components.schemas (each a plain JSON copy, its own nested
 * named shapes referenced too), headers per response, OAuth2 scopes per operation, descriptions.
 */
export function shapeDocument(document: Json, named: NamedSchemas, facts: Map<string, OperationFacts>): Json {
  const plain = Object.fromEntries(Object.entries(named).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as unknown]));
  // Larger shapes first, so a Deck is referenced as a whole before its cards are.
  const entries = Object.entries(plain).sort(([, a], [, b]) => canonical(b).length - canonical(a).length);
  const byText = new Map(entries.map(([name, schema]) => [canonical(schema), name]));
  const schemas: Json = {};
  for (const [name, schema] of entries) {
    const others = new Map([...byText].filter(([, n]) => n !== name));
    schemas[name] = referenceNamed(schema, others);
  }
  const paths = referenceNamed(document.paths, byText) as Record<string, Record<string, Json>>;
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const id = String(operation.operationId);
      const fact = facts.get(id);
      if (fact?.scope !== undefined) {
        // One requirement naming both scopes: the token needs each of them.
        const scopes = [...(fact.scope === null ? [] : [fact.scope]), ...(fact.also === undefined ? [] : [fact.also])];
        operation.security = [{ oauth2: scopes }, { bearerAuth: scopes }];
      }
      // A POST without a body (complete a review) takes an empty JSON object too: say so.
      if (method === 'post' && operation.requestBody === undefined) {
        operation.requestBody = { required: false, content: { 'application/json': { schema: { type: 'object', maxProperties: 0, description: 'No fields; an empty body or `{}`' } } } };
      }
      const responses = (operation.responses ?? {}) as Record<string, Json>;
      alternativeContent(responses['200']);
      for (const [status, response] of Object.entries(responses)) {
        const code = Number(status);
        if (response.description === 'Default Response') response.description = code === 201 ? 'Created' : (typeof operation.summary === 'string' ? operation.summary : 'OK');
        response.headers = { ...headersFor(code, fact?.scope !== undefined, fact?.idempotent ?? false, fact?.etag ?? false), ...(response.headers as Json | undefined) };
      }
    }
  }
  // Only the shapes and headers something refers to (a named shape the document never uses
  // exactly, like a review body swagger rewrote, stays inline).
  const used = (prefix: string, all: Json): Json => {
    const text = JSON.stringify([paths, schemas]);
    return Object.fromEntries(Object.entries(all).filter(([name]) => text.includes(`"#/components/${prefix}/${name}"`)));
  };
  const components = (document.components ?? {}) as Json;
  return {
    ...document,
    paths,
    components: { ...components, schemas: { ...(components.schemas as Json | undefined), ...used('schemas', schemas) }, headers: used('headers', RESPONSE_HEADERS) },
  };
}
