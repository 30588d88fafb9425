// The YAML of deck markdown: what the exporter writes is read without the YAML library and means the
// same to the library; anything else is read by the library within a budget, its nesting bounded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parse } from 'yaml';
import { AppError } from '../../../src/errors.ts';
import { parseDeckMarkdown } from '../../../src/modules/deck-import/deck-markdown.ts';
import { YAML_LIMITS, readYamlMapping, yamlBudget, yamlValue } from '../../../src/modules/deck-import/deck-markdown-yaml.ts';
import { growth } from '../../helpers/growth.ts';

const TRICKY_STRINGS = [
  '', ' ', ' a', 'a ', 'null', 'Null', 'true', 'FALSE', '~', '1', '-1', '1.5', '1e5', '0x10', '-0', '.inf', '.nan', 'y', 'no',
  '#a', 'a #b', 'a: b', 'a:b', '- a', '? a', '[a]', '{a}', '"a"', "'a'", '*a', '&a', '!a', '%a', '@a', '`a`', '|', '>', ',',
  'a\nb', '\n', '\r\n', '\t', '\u0000', '\u0085', '\u2028', '\ufeff', '\u007f', '\u00a0', 'é', '🧠', 'e\u0301', '\u200f', '\\', '\\u0041',
  'x'.repeat(1100),
];
const text = fc.oneof(fc.constantFrom(...TRICKY_STRINGS), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 10 }).map((s) => s.toWellFormed()));
const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    // Keys the service refuses are never exported: __proto__, constructor, one backslash.
    fc.dictionary(text.filter((k) => k !== '__proto__' && k !== 'constructor' && k !== '\\'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

test('should write any value as a line the fast reader takes without the library, and the library reads alike', () => {
  fc.assert(fc.property(value, (v) => {
    const line = `k: ${yamlValue(v)}`;
    assert.ok(!line.includes('\n'), line);
    const budget = yamlBudget();
    const read = readYamlMapping([line], 1, 'test block', budget).get('k')?.value;
    assert.equal(budget.tokens, YAML_LIMITS.tokensPerDocument, `the YAML library read ${JSON.stringify(line)}`);
    // Compared as JSON, the form the value is stored in (-0 is 0 there).
    assert.equal(JSON.stringify(read), JSON.stringify(v), line);
    assert.equal(JSON.stringify(parse(line).k), JSON.stringify(v), `library: ${line}`);
  }), { numRuns: 2000 });
});

function assertParseFailed(run: () => unknown, message: RegExp): void {
  assert.throws(run, (err: unknown) => err instanceof AppError && err.code === 'PARSE_FAILED' && message.test(err.message));
}

test('should stop reading YAML nested past the limit after a few tokens, however deep it goes', () => {
  for (const [shape, lines] of [
    ['[', ['# c', `x: ${'['.repeat(1_000_000)}`]],
    ['{a: ', ['# c', `x: ${'{a: '.repeat(1_000_000)}`]],
    ['? ', ['# c', `x: ${'? '.repeat(1_000_000)}`]],
    ['- ', ['x:', `  ${'- '.repeat(1_000_000)}a`]],
    ['k:', Array.from({ length: 3_000 }, (_, i) => `${' '.repeat(i)}k:`)],
  ] as const) {
    const budget = yamlBudget();
    assertParseFailed(() => readYamlMapping([...lines], 1, 'card meta block', budget), /more than 64 levels deep/);
    assert.ok(YAML_LIMITS.tokensPerDocument - budget.tokens < 10 * YAML_LIMITS.maxDepth, `${shape}: ${YAML_LIMITS.tokensPerDocument - budget.tokens} tokens read`);
  }
});

test('should share one budget of YAML library tokens between all the blocks of a document', () => {
  const block = ['# read by the library', ...Array.from({ length: 1000 }, (_, i) => `k${i}: {a: [1, 2]}`)];
  const budget = yamlBudget();
  assertParseFailed(() => { for (let i = 0; i < 100; i++) readYamlMapping(block, 1, 'card meta block', budget); }, /at most 50000 YAML tokens/);
});

test('should refuse aliases that expand a block far past its own size', () => {
  const lines = ['a: &a "' + 'x'.repeat(10_000) + '"', `b: [${Array(50).fill('*a').join(', ')}]`];
  assertParseFailed(() => readYamlMapping(lines, 1, 'front matter', yamlBudget()), /too large once its YAML aliases are expanded/);
});

test('should refuse repeated keys at any depth without comparing every pair', () => {
  assertParseFailed(() => readYamlMapping(['# c', 'a:', '  b: {"x": 1, "x": 2}'], 1, 'card meta block', yamlBudget()), /"x" is repeated/);
  const many = ['# c', ...Array.from({ length: 40_000 }, (_, i) => `k${i}: 1`), 'k7: 2'];
  assertParseFailed(() => readYamlMapping(many, 1, 'front matter', { tokens: 1e9 }), /"k7" is repeated/);
});

test('should read as much of a document as its first 251 cards, however long it is', () => {
  const card = (i: number) => `<!-- card\nextras:\n  subject: s${i}\n-->\n## Front\nq${i}\n`;
  const docs = new Map<number, string>();
  const doc = (extra: number) => docs.get(extra) ?? docs.set(extra, `---\nversion: 1\n---\n# T\n\n${Array.from({ length: 251 + extra }, (_, i) => card(i)).join('\n---\n\n')}`).get(extra)!;
  const ratio = growth((n) => {
    assert.throws(() => parseDeckMarkdown(doc(n)), (err: unknown) => err instanceof AppError && err.code === 'TOO_MANY_CARDS');
  }, 20_000, 2);
  assert.ok(ratio < 2, `4 times the cards after the 251st took ${ratio.toFixed(1)} times as long`);
});
