// fast-check generators derived from a route's JSON Schema (the subset the route schemas use):
// values of the schema's shape whose strings are mostly ordinary and sometimes hostile, and
// mutations that break a value in the ways attackers do (deep nesting, long runs, bad Unicode).
import fc from 'fast-check';
import { HOSTILE_UNITS } from './growth.ts';

export type Schema = Record<string, unknown>;

/** Text that is not quite text, or is the edge of it. */
export const UNICODE_EDGES = [
  '\ud800', '\udfff', 'a\ud83e', '\udde0b', '\u0000', '\ufeff', '\u200f', '\u202e', '\u200b', 'e\u0301\u0327', '🧠', '𝔸',
  '\u2028', '\u2029', '\u0085', '\u007f', '\ufffe', '\uffff', '\r\n', '\r', '\t', '\\u0000', '%00', '\u00a0', 'İ', 'ß',
];

export const unicodeEdge = fc.array(fc.oneof(fc.constantFrom(...UNICODE_EDGES), fc.string({ maxLength: 3 })), { minLength: 1, maxLength: 4 })
  .map((parts) => parts.join(''));

/** A run of one hostile unit, up to `max` characters. */
export const longRun = (max: number) => fc.tuple(fc.constantFrom(...HOSTILE_UNITS), fc.integer({ min: 1000, max }))
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));

const ordinaryText = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'grapheme', maxLength: 12 }));

/**
 * Mostly ordinary strings, sometimes edge cases of Unicode, now and then a long run: mostly valid,
 * so that a body gets past validation and reaches the code behind it (mutations break the rest).
 */
export const text = fc.oneof(
  { weight: 60, arbitrary: ordinaryText },
  { weight: 2, arbitrary: unicodeEdge },
  { weight: 1, arbitrary: longRun(50_000) },
);

// A deep value is written into the JSON text after stringifying (JSON.stringify overflows on it).
const DEEP = '\u0000deep:';
const deepMarker = fc.tuple(fc.constantFrom(20, 1_000, 5_000, 100_000), fc.constantFrom('[', '{"a":')).map(([depth, open]) => `${DEEP}${depth}:${open}`);
/** An object nested deep, where the schema takes any object. */
const deepObject = fc.constantFrom(17, 100_000).map((depth) => `${DEEP}${depth}:{"a":`);

function fitLength(value: string, schema: Schema): string {
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = (schema.maxLength as number | undefined) ?? Infinity;
  const cut = Array.from(value).slice(0, max).join('');
  return cut.length >= min ? cut : cut.padEnd(min, 'x');
}

/** Strings matching a pattern, when fast-check can generate them (it has no lookaround). */
function matching(pattern: string, schema: Schema): fc.Arbitrary<string>[] {
  const re = new RegExp(pattern, 'u');
  const max = (schema.maxLength as number | undefined) ?? Infinity;
  try {
    const arbitrary = fc.stringMatching(re, { maxLength: Math.min(max, 60) }).filter((s) => s.length <= max && re.test(s));
    fc.sample(arbitrary, 1);
    return [arbitrary];
  } catch {
    return [];
  }
}

/** Values of `schema`'s shape (valid but for their strings, which may be hostile). */
export function arbitraryFor(schema: Schema): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Schema[]).map(arbitraryFor));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  switch (schema.type) {
    case 'string': {
      const patterned = typeof schema.pattern === 'string' ? matching(schema.pattern, schema) : [];
      return patterned.length > 0
        ? fc.oneof({ weight: 6, arbitrary: patterned[0] }, { weight: 1, arbitrary: text.map((s) => fitLength(s, schema)) })
        : text.map((s) => fitLength(s, schema));
    }
    case 'integer':
      return fc.integer({ min: (schema.minimum as number | undefined) ?? -1e6, max: (schema.maximum as number | undefined) ?? 1e6 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(arbitraryFor((schema.items as Schema | undefined) ?? {}), {
        minLength: (schema.minItems as number | undefined) ?? 0,
        maxLength: Math.min((schema.maxItems as number | undefined) ?? 3, 3),
      });
    case 'object': {
      const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
      if (Object.keys(properties).length === 0) {
        // Free-form: sometimes nested far past any limit.
        return fc.oneof(fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }), deepObject);
      }
      const arbitraries = Object.fromEntries(Object.entries(properties).map(([key, child]) => [key, arbitraryFor(child)]));
      return fc.record(arbitraries, { requiredKeys: (schema.required as string[] | undefined) ?? [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** How to break one node of a value (counted depth first; `run` counts strings only). */
export type Mutation =
  | { kind: 'none' }
  | { kind: 'deep'; at: number; marker: string }
  | { kind: 'run'; at: number; run: string }
  | { kind: 'replace'; at: number; value: unknown };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'none' } as const) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deep' as const), at: fc.nat(), marker: deepMarker }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('run' as const), at: fc.nat(), run: longRun(200_000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: fc.oneof(unicodeEdge, fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('', -1, 1e308, 2 ** 53 + 1, [], {}, true)) }) },
);

/** The JSON text of `value` with one node broken as `m` says, and deep markers written out. */
export function mutatedJson(value: unknown, m: Mutation): string {
  const eligible = (v: unknown) => m.kind !== 'run' || typeof v === 'string';
  const nodes: unknown[] = [];
  const collect = (v: unknown) => {
    if (eligible(v)) nodes.push(v);
    if (typeof v === 'object' && v !== null) Object.values(v).forEach(collect);
  };
  collect(value);
  const target = m.kind === 'none' || nodes.length === 0 ? -1 : m.at % nodes.length;
  const replacement = m.kind === 'deep' ? m.marker : m.kind === 'run' ? m.run : m.kind === 'replace' ? m.value : undefined;
  let index = 0;
  const walk = (v: unknown): unknown => {
    if (eligible(v) && index++ === target) return replacement;
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, c]) => [k, walk(c)]));
    return v;
  };
  return JSON.stringify(walk(value)).replace(/"\\u0000deep:(\d+):(\[|\{\\"a\\":)"/g, (_, depth: string, open: string) => {
    const opener = open === '[' ? '[' : '{"a":';
    const n = Number(depth);
    return opener === '[' ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  });
}
