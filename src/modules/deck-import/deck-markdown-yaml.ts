// YAML blocks of deck markdown (front matter, card meta): read into entries with their lines.
import { LineCounter, isMap, isScalar, parseDocument, type Node } from 'yaml';
import { fail, type Entry } from './deck-markdown-syntax.ts';

// ---------------------------------------------------------------------------------------------
// YAML blocks (front matter, card meta)

// Performance (docs/performance.md): the YAML library takes 35 to 90 µs a block, and with a meta
// block per card that was most of a markdown import. The exporter's usual output, "key: scalar"
// lines and one level of "  key: scalar" under a key, is read here without it. Any line outside
// this subset (comments, block scalars, anchors, URLs, odd spacing, a repeated key...) makes this
// return null and the whole block goes to the library, so results and errors stay the library's.
const FAST_KEY = /^([A-Za-z][A-Za-z0-9]*):(?: (.*))?$/;
const FAST_NESTED = /^  ([A-Za-z][A-Za-z0-9]*): (.+)$/;
const FAST_PLAIN = /^[A-Za-z](?:[A-Za-z0-9 .,;!?'()/_+-]*[A-Za-z0-9.!?')])?$/;
const FAST_FLOW_ITEM = /^[A-Za-z](?:[A-Za-z0-9 ._/+-]*[A-Za-z0-9])?$/;
const FAST_QUOTED = /^"(?:[^"\\\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ud800-\udfff]|\\["\\/bfnrt]|\\u(?![dD][89abAB])[0-9a-fA-F]{4})*"$/;
const FAST_INT = /^(?:0|[1-9][0-9]{0,14})$/;
const NOT_A_STRING = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;
const NO_VALUE = Symbol('no value');

function fastScalar(text: string, flow: boolean): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (NOT_A_STRING.test(text)) return NO_VALUE;
  if (FAST_INT.test(text)) return Number(text);
  if ((flow ? FAST_FLOW_ITEM : FAST_PLAIN).test(text)) return text;
  if (!flow && FAST_QUOTED.test(text)) return JSON.parse(text) as string;
  return NO_VALUE;
}

function fastValue(text: string): unknown {
  if (text.startsWith('[') && text.endsWith(']')) {
    const inner = text.slice(1, -1);
    if (inner === '') return [];
    const items = inner.split(', ').map((item) => fastScalar(item, true));
    return items.includes(NO_VALUE) ? NO_VALUE : items;
  }
  return fastScalar(text, false);
}

function readSimpleMapping(lines: string[], firstLine: number): Map<string, Entry> | null {
  const out = new Map<string, Entry>();
  for (let i = 0; i < lines.length; i++) {
    const top = FAST_KEY.exec(lines[i]);
    if (!top || out.has(top[1])) return null;
    if (top[2] !== undefined) {
      const value = fastValue(top[2]);
      if (value === NO_VALUE) return null;
      out.set(top[1], { value, line: firstLine + i });
      continue;
    }
    const nested: Record<string, unknown> = {};
    const line = firstLine + i;
    let any = false;
    for (let m = FAST_NESTED.exec(lines[i + 1] ?? ''); m !== null; m = FAST_NESTED.exec(lines[i + 1] ?? '')) {
      if (Object.hasOwn(nested, m[1])) return null;
      const value = fastValue(m[2]);
      if (value === NO_VALUE) return null;
      nested[m[1]] = value;
      any = true;
      i++;
    }
    if (!any) return null;
    out.set(top[1], { value: nested, line });
  }
  return out;
}

export function readYamlMapping(lines: string[], firstLine: number, what: string): Map<string, Entry> {
  const simple = readSimpleMapping(lines, firstLine);
  if (simple !== null) return simple;
  // Each line keeps its line break: a "|+" block scalar at the end keeps its trailing newlines.
  const source = lines.map((line) => `${line}\n`).join('');
  const counter = new LineCounter();
  const doc = parseDocument(source, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const lastLine = firstLine + Math.max(lines.length - 1, 0);
  const lineAt = (offset: number) => Math.min(firstLine + counter.linePos(offset).line - 1, lastLine);
  const error = doc.errors[0];
  if (error) fail(lineAt(error.pos[0]), `invalid YAML in the ${what}: ${error.message}`);
  const out = new Map<string, Entry>();
  if (doc.contents === null) return out;
  if (!isMap(doc.contents)) fail(firstLine, `the ${what} must be a YAML mapping of "key: value" lines`);
  for (const pair of doc.contents.items) {
    const keyNode = pair.key as Node | null;
    const line = keyNode?.range ? lineAt(keyNode.range[0]) : firstLine;
    const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
    let value: unknown;
    try {
      value = (pair.value as Node | null)?.toJS(doc, { maxAliasCount: 100 }) ?? null;
    } catch (err) {
      fail(line, `invalid YAML value for ${key}: ${(err as Error).message}`);
    }
    const problem = jsonProblem(value);
    if (problem) fail(line, `${key}: ${problem}`);
    out.set(key, { value, line });
  }
  return out;
}

// The body becomes JSON-shaped input; YAML-only values (.nan, .inf) have no JSON equivalent.
// An alias inside the value it names (`x: &a [*a]`) makes a cycle, which JSON cannot hold.
function jsonProblem(value: unknown, ancestors: readonly object[] = []): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'numbers must be finite';
  if (Array.isArray(value) || isPlainObject(value)) {
    if (ancestors.includes(value)) return 'a YAML alias must not refer to a value that contains it';
    // Refused in JSON bodies too (prototype poisoning): both formats answer the same.
    if (!Array.isArray(value) && (Object.hasOwn(value, '__proto__') || (isPlainObject(value.constructor) && Object.hasOwn(value.constructor, 'prototype')))) {
      return 'keys named __proto__ (or constructor.prototype) are not allowed';
    }
    const inner = [...ancestors, value];
    return (Array.isArray(value) ? value : Object.values(value)).map((v) => jsonProblem(v, inner)).find((p) => p !== null) ?? null;
  }
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  return 'only strings, numbers, booleans, null, lists and mappings are allowed';
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    && Object.getPrototypeOf(value) === Object.prototype;
}

export const QUOTE_HINT = ' (put the value in quotes if it is text)';

export function optionalString(entries: Map<string, Entry>, key: string): string | null | undefined {
  const entry = entries.get(key);
  if (entry === undefined || entry.value === null) return entry?.value as null | undefined;
  if (typeof entry.value !== 'string') fail(entry.line, `${key} must be a string${QUOTE_HINT}`);
  return entry.value;
}

export function checkKeys(entries: Map<string, Entry>, known: string[], what: string, hint: (key: string) => string): void {
  for (const [key, { line }] of entries) {
    if (!known.includes(key)) fail(line, `unknown ${what} key "${key}"${hint(key)}; allowed keys: ${known.join(', ')}`);
  }
}

export function caseHint(known: string[]) {
  return (key: string) => {
    const match = known.find((k) => k.toLowerCase() === key.toLowerCase());
    return match ? ` (keys are case-sensitive: did you mean "${match}"?)` : '';
  };
}
