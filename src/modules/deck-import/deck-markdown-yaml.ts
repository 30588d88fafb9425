// YAML blocks of deck markdown (front matter, card meta): read into entries with their lines.
import {
  Composer, Lexer, LineCounter, Parser, isMap, isPair, isScalar, isSeq,
  type Document, type Node, type ParsedNode,
} from 'yaml';
import { BACKSLASH_KEY } from '../../validation.ts';
import { fail, type Entry } from './deck-markdown-syntax.ts';

// The YAML library is general and costs microseconds per token, more when deeply nested (its
// composer recurses: 1,000,000 "[" took 15 s), so a document gets a budget of library work, and
// nesting is bounded while the library's parser reads.
export const YAML_LIMITS = {
  /** YAML tokens the library may read in one document (the fast path below, which reads all the exporter writes, costs none). */
  tokensPerDocument: 50_000,
  /** Nesting of collections in one block (a card meta block needs 3 more than templateData's 16). */
  maxDepth: 64,
  /** A block's value once aliases are expanded: its source length plus this many units. */
  aliasExpansion: 65_536,
} as const;

export interface YamlBudget { tokens: number }

export function yamlBudget(): YamlBudget {
  return { tokens: YAML_LIMITS.tokensPerDocument };
}

// ---------------------------------------------------------------------------------------------
// YAML blocks (front matter, card meta)

// Performance (docs/performance.md): the YAML library takes 35 to 90 µs a block, and with a meta
// block per card that was most of a markdown import. What the exporter writes (yamlValue below),
// "key: value" lines and one level of "  key: value" under a key, is read here without it: plain
// words, numbers, booleans, null, JSON strings, and lists and mappings as compact JSON. Any line
// outside this subset (comments, block scalars, anchors, odd spacing, a repeated key...) makes this
// return null and the whole block goes to the library, so results and errors stay the library's.
const FAST_KEY = /^([A-Z][A-Z0-9]*):(?: (.*))?$/i;
const FAST_NESTED = /^ {2}([A-Z][A-Z0-9]*): (.+)$/i;
const FAST_PLAIN = /^[A-Z](?:[\w .,;!?'()/+-]*[A-Z0-9.!?')])?$/i;
const FAST_FLOW_ITEM = /^[A-Z](?:[\w ./+-]*[A-Z0-9])?$/i;
const FAST_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:e[-+]?\d+)?$/i;
const NOT_A_STRING = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;
// JSON that YAML reads the same: none of the characters YAML escapes or treats otherwise, and no
// surrogate escapes (JSON.parse checks the rest in linear time; a regex over a string's characters
// overflowed V8's backtracking stack on a 16 MB line).
const NOT_JSON_LIKE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]|\\u[dD][89abAB]/u;
const NO_VALUE = Symbol('no value');

function fastScalar(text: string, flow: boolean): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (NOT_A_STRING.test(text)) return NO_VALUE;
  if (FAST_NUMBER.test(text)) return exactNumber(Number(text));
  if ((flow ? FAST_FLOW_ITEM : FAST_PLAIN).test(text)) return text;
  if (!flow && text.startsWith('"')) return fastJson(text);
  return NO_VALUE;
}

/** YAML reads -0 as 0 and has no JSON for Infinity: those go to the library for its answer. */
function exactNumber(n: number): number | typeof NO_VALUE {
  return Number.isFinite(n) && !Object.is(n, -0) ? n : NO_VALUE;
}

function fastValue(text: string): unknown {
  if (text.startsWith('[') && text.endsWith(']')) {
    const inner = text.slice(1, -1);
    if (inner === '') return [];
    const items = inner.split(', ').map((item) => fastScalar(item, true));
    if (!items.includes(NO_VALUE)) return items;
  }
  if (text.startsWith('[') || text.startsWith('{')) return fastJson(text);
  return fastScalar(text, false);
}

/**
 * Compact JSON (a string, list or mapping without whitespace between tokens), as YAML reads it:
 * duplicate keys, which JSON.parse would merge and YAML refuses, go to the library.
 */
function fastJson(text: string): unknown {
  // A key of one backslash would make JSON.parse misread later keys (BACKSLASH_KEY): YAML reads it.
  if (NOT_JSON_LIKE.test(text) || BACKSLASH_KEY.test(text)) return NO_VALUE;
  const keys = compactJsonKeys(text);
  if (keys < 0) return NO_VALUE;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return NO_VALUE;
  }
  let parsedKeys = 0;
  const stack = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'number' && exactNumber(node) === NO_VALUE) return NO_VALUE;
    if (typeof node !== 'object' || node === null) continue;
    const children = Array.isArray(node) ? node : Object.values(node);
    if (!Array.isArray(node)) parsedKeys += children.length;
    for (const child of children as unknown[]) stack.push(child);
  }
  return parsedKeys === keys ? value : NO_VALUE;
}

/** The keys in compact JSON text, or -1 when there is whitespace between its tokens. */
function compactJsonKeys(text: string): number {
  let keys = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === ' ') return -1;
    if (c !== '"') continue;
    let end = i + 1;
    while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
    if (text[end + 1] === ':') keys++;
    i = end;
  }
  return keys;
}

/**
 * A value as one line of YAML that the fast path above reads back as exactly this value (and the
 * YAML library too): plain words where unambiguous, short word lists as [a, b], anything else as
 * compact JSON with the characters YAML would read otherwise escaped.
 */
export function yamlValue(value: unknown): string {
  if (typeof value === 'string' && fastScalar(value, false) === value) return value;
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && fastScalar(v, true) === v)) {
    return `[${value.join(', ')}]`;
  }
  return escapeYamlUnsafe(JSON.stringify(value));
}

// Characters JSON leaves as they are and YAML reads otherwise (C1 controls, line and paragraph
// separators, BOM and non-characters): escaped as \uXXXX in the JSON a value is written as.
const YAML_UNSAFE = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;

/** The escape of each such character by its code, else undefined. */
const YAML_ESCAPES = new Map<number, string>();
for (let code = 0x7f; code <= 0x9f; code++) YAML_ESCAPES.set(code, `\\u${code.toString(16).padStart(4, '0')}`);
for (const code of [0x2028, 0x2029, 0xfeff, 0xfffe, 0xffff]) YAML_ESCAPES.set(code, `\\u${code.toString(16)}`);

/**
 * One pass over the text, concatenating. A `replace` with a callback per character cost about a
 * microsecond per character on a long run of them and grew faster than the run (the garbage of
 * each call): 4 times the run took 10 to 12 times as long (test/modules/cards/linear-work.test.ts).
 */
function escapeYamlUnsafe(json: string): string {
  if (!YAML_UNSAFE.test(json)) return json;
  let out = '';
  let from = 0;
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (code < 0x7f || (code > 0x9f && code < 0x2028)) continue;
    const escape = YAML_ESCAPES.get(code);
    if (escape === undefined) continue;
    if (from < i) out += json.slice(from, i);
    let end = i + 1;
    while (end < json.length && json.charCodeAt(end) === code) end++;
    out += end - i === 1 ? escape : escape.repeat(end - i);
    from = end;
    i = end - 1;
  }
  return out + json.slice(from);
}

function readSimpleMapping(lines: string[], firstLine: number): Map<string, Entry> | null {
  const out = new Map<string, Entry>();
  for (let i = 0; i < lines.length; i++) {
    const top = FAST_KEY.exec(lines[i]);
    if (!top || out.has(top[1])) return null;
    const inline = top.at(2);
    if (inline !== undefined) {
      const value = fastValue(inline);
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

export function readYamlMapping(lines: string[], firstLine: number, what: string, budget: YamlBudget): Map<string, Entry> {
  const entries = readSimpleMapping(lines, firstLine) ?? readWithLibrary(lines, firstLine, what, budget);
  // Aliases share values, so a walk may cost more than the source: bounded by its length.
  const expansion = { units: lines.reduce((n, line) => n + line.length + 1, 0) + YAML_LIMITS.aliasExpansion };
  for (const [key, { value, line }] of entries) {
    const problem = jsonProblem(value, expansion);
    if (problem) fail(line, `${key}: ${problem}`);
  }
  return entries;
}

function readWithLibrary(lines: string[], firstLine: number, what: string, budget: YamlBudget): Map<string, Entry> {
  // Each line keeps its line break: a "|+" block scalar at the end keeps its trailing newlines.
  const source = lines.map((line) => `${line}\n`).join('');
  const counter = new LineCounter();
  const lastLine = firstLine + Math.max(lines.length - 1, 0);
  const lineAt = (offset: number) => Math.min(firstLine + counter.linePos(offset).line - 1, lastLine);
  const doc = parseBounded(source, counter, what, budget, lineAt);
  const error = doc.errors.at(0);
  if (error) fail(lineAt(error.pos[0]), `invalid YAML in the ${what}: ${error.message}`);
  const out = new Map<string, Entry>();
  if (doc.contents === null) return out;
  if (!isMap(doc.contents)) fail(firstLine, `the ${what} must be a YAML mapping of "key: value" lines`);
  checkMappingKeys(doc.contents, lineAt);
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
    out.set(key, { value, line });
  }
  return out;
}

/**
 * The library's own pipeline (lexer, parser, composer, as in parseDocument), with the document's
 * token budget charged and the parser's nesting checked at every token, so neither a huge nor a
 * deeply nested block reaches the composer.
 */
function parseBounded(source: string, counter: LineCounter, what: string, budget: YamlBudget, lineAt: (offset: number) => number): Document.Parsed {
  const parser = new Parser(counter.addNewLine);
  counter.addNewLine(0);
  const tokens = [];
  for (const lexeme of new Lexer().lex(source)) {
    if (--budget.tokens < 0) {
      fail(lineAt(parser.offset), `the YAML of this document is too large: its front matter and card meta blocks may hold at most ${YAML_LIMITS.tokensPerDocument} YAML tokens in all`);
    }
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (parser.stack.length > YAML_LIMITS.maxDepth) fail(lineAt(parser.offset), `the ${what} nests YAML more than ${YAML_LIMITS.maxDepth} levels deep`);
  }
  for (const token of parser.end()) tokens.push(token);
  const docs = [...new Composer({ prettyErrors: false, uniqueKeys: false }).compose(tokens, true, source.length)];
  const doc = docs[0];
  if (docs.length > 1) fail(lineAt((docs[1]).range[0]), `the ${what} must be one YAML mapping, not several documents`);
  return doc;
}

/**
 * Keys are text (or numbers, read as text) and unique in each mapping, at every depth: the check
 * the library makes with uniqueKeys, which compares every pair of keys (a mapping of 30,000 keys took 7 s).
 */
function checkMappingKeys(root: Node, lineAt: (offset: number) => number): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = pair.key as ParsedNode | null;
        const line = lineAt(key?.range[0] ?? node.range?.[0] ?? 0);
        if (key !== null && !isScalar(key)) fail(line, 'a mapping key must be text, not a list, mapping or alias');
        const name = key === null || key.value === null ? '' : (typeof key.value === 'string' ? key.value : JSON.stringify(key.value));
        if (seen.has(name)) fail(line, `invalid YAML: map keys must be unique; "${name}" is repeated`);
        seen.add(name);
        stack.push(pair.value);
      }
    } else if (isSeq(node)) {
      stack.push(...node.items);
    } else if (isPair(node)) {
      stack.push(node.key, node.value);
    }
  }
}

// The body becomes JSON-shaped input; YAML-only values (.nan, .inf) have no JSON equivalent.
// An alias inside the value it names (`x: &a [*a]`) makes a cycle, which JSON cannot hold. Aliases
// share values, so a walk of the value may cost more than the source: it is charged to `expansion`.
function jsonProblem(root: unknown, expansion: { units: number }): string | null {
  // Pending values and their depths; a depth of 0 marks the exit of a collection. The collections
  // being walked are its ancestors (at most maxDepth + 1: deeper ones are refused), so the cycle
  // check scans them rather than keeping a set; and no tuple or entry list is made per value, which
  // made this a sixth of a markdown import's garbage (docs/performance.md).
  const values: unknown[] = [root];
  const depths: number[] = [1];
  const ancestors: object[] = [];
  for (let depth = depths.pop(); depth !== undefined; depth = depths.pop()) {
    const value = values.pop();
    if (depth === 0) {
      ancestors.pop();
      continue;
    }
    expansion.units -= 1 + (typeof value === 'string' ? value.length : 0);
    if (expansion.units < 0) return 'the value is too large once its YAML aliases are expanded';
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return 'numbers must be finite';
      continue;
    }
    if (value === null || typeof value === 'string' || typeof value === 'boolean') continue;
    if (!Array.isArray(value) && !isPlainObject(value)) return 'only strings, numbers, booleans, null, lists and mappings are allowed';
    if (ancestors.includes(value)) return 'a YAML alias must not refer to a value that contains it';
    if (depth > YAML_LIMITS.maxDepth) return `values may be nested at most ${YAML_LIMITS.maxDepth} levels deep`;
    // Refused in JSON bodies too (prototype poisoning): both formats answer the same.
    if (!Array.isArray(value) && (Object.hasOwn(value, '__proto__') || (isPlainObject(value.constructor) && Object.hasOwn(value.constructor, 'prototype')))) {
      return 'keys named __proto__ (or constructor.prototype) are not allowed';
    }
    ancestors.push(value);
    values.push(value);
    depths.push(0);
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) { values.push(value[i]); depths.push(depth + 1); }
    } else {
      const keys = Object.keys(value);
      for (const key of keys) expansion.units -= key.length;
      for (let i = keys.length - 1; i >= 0; i--) { values.push(value[keys[i]]); depths.push(depth + 1); }
    }
  }
  return null;
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
