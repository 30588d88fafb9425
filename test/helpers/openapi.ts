// Checks every response a test receives against the OpenAPI document the server serves.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Operation = { responses: Record<string, { content?: Record<string, { schema: object }> }> };
type Document = { paths: Record<string, Record<string, Operation>>; components?: object };

export class OpenApiChecker {
  readonly #ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  readonly #routes: { method: string; pattern: RegExp; operation: Operation; template: string }[] = [];
  readonly #compiled = new Map<object, ValidateFunction>();

  readonly #components: object | undefined;

  constructor(document: Document) {
    this.#components = document.components;
    for (const [template, methods] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, operation] of Object.entries(methods)) {
        this.#routes.push({ method: method.toUpperCase(), pattern, operation, template });
      }
    }
    // Static segments beat parameters, as in the router (/decks/capacity vs /decks/{deckId}).
    this.#routes.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  }

  /** Throws if the response is not one the document describes for this operation. */
  check(method: string, apiPath: string, status: number, contentType: string | null, body: unknown): void {
    // The path first (a concrete path before a templated one, as OpenAPI matches), then its method:
    // PATCH /decks/capacity is no operation, not PATCH /decks/{deckId}.
    const template = this.#routes.find((r) => r.pattern.test(apiPath))?.template;
    const route = this.#routes.find((r) => r.template === template && r.method === method);
    if (!route) {
      if (status === 404 || status === 405 || method === 'OPTIONS') return; // not a documented route
      throw new Error(`OpenAPI: no operation for ${method} ${apiPath}`);
    }
    const response = route.operation.responses[String(status)] ?? route.operation.responses.default;
    if (!response) throw new Error(`OpenAPI: ${method} ${route.template} does not document status ${status}`);
    if (!response.content) return;
    const mediaType = (contentType ?? '').split(';')[0]?.trim() ?? '';
    // A representation chosen by Accept, documented beside the typed content (openapi-shape.ts).
    const media = response.content[mediaType] ?? (response as { 'x-alternative-content'?: Record<string, { schema: object }> })['x-alternative-content']?.[mediaType];
    if (!media) throw new Error(`OpenAPI: ${method} ${route.template} ${status} does not document ${mediaType}`);
    let validate = this.#compiled.get(media.schema);
    if (!validate) {
      // The document's components beside the schema, so its #/components/... references resolve.
      validate = this.#ajv.compile({ ...media.schema, components: this.#components });
      this.#compiled.set(media.schema, validate);
    }
    if (!validate(body)) {
      throw new Error(`OpenAPI: ${method} ${route.template} ${status} body does not match: ${this.#ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
    }
  }
}

/**
 * The document with every `#/components/schemas/...` reference replaced by the schema it names, for
 * tests that compare a schema with another (an MCP tool's) field by field. The named shapes do not
 * refer to themselves, so the copy is finite.
 */
export function inlineSchemaRefs<T>(document: T): T {
  const named = ((document as { components?: { schemas?: Record<string, unknown> } }).components?.schemas) ?? {};
  const inline = (value: unknown, depth: number): unknown => {
    if (depth > 64) throw new Error('inlineSchemaRefs: references nested deeper than 64');
    if (Array.isArray(value)) return value.map((item: unknown) => inline(item, depth + 1));
    if (value === null || typeof value !== 'object') return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      const { $ref: _ref, ...rest } = value as Record<string, unknown>;
      return { ...(inline(named[ref.slice('#/components/schemas/'.length)], depth + 1) as object), ...rest };
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inline(v, depth + 1)]));
  };
  return inline(document, 0) as T;
}
