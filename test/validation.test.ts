// Node 24.21's JSON.parse (V8 13.6) can read every later one-character key written as an escape
// ("\u00e9", "\n") as a backslash, in the whole process, once it has read an object key of one
// backslash (when that key is the transition V8 expects). So such a key is never stored, and text
// holding one is not given to JSON.parse by the code that reads outside text.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { readYamlMapping, yamlBudget } from '../src/modules/deck-import/deck-markdown-yaml.ts';
import { BACKSLASH_KEY } from '../src/validation.ts';

test('should find an object key of one backslash in JSON text, in any spelling, and nothing else', () => {
  for (const text of ['{"\\\\":1}', '{ "\\u005c" : 1}', '{"\\u005C":1}', '[{"a":1,"\\\\":2}]', '{"a":{"b":[],\n"\\\\":{}}}']) assert.ok(BACKSLASH_KEY.test(text), text);
  for (const text of ['{"\\\\\\\\":1}', '["\\\\"]', '{"a":"\\\\"}', '{"a":"{\\"\\\\\\\\\\":"}', '{"\\\\a":1}', '{"a\\\\":1}']) assert.ok(!BACKSLASH_KEY.test(text), text);
});

test('should show the engine fault guarded against (when this fails, the engine is fixed and the guard can go)', () => {
  // A fresh process, so that the fault cannot reach this one.
  const run = (code: string) => execFileSync(process.execPath, ['-e', code]).toString().trim();
  assert.equal(run(String.raw`JSON.parse('{"\\\\":1}'); console.log(Object.keys(JSON.parse('{"\\u00e9":1}'))[0])`), '\\');
  assert.equal(run(String.raw`console.log(Object.keys(JSON.parse('{"\\u00e9":1}'))[0])`), 'é');
});

test('should read a backslash key in deck markdown without handing it to JSON.parse', (t) => {
  const parsed: string[] = [];
  const parse = JSON.parse;
  t.mock.method(JSON, 'parse', (text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    parsed.push(text);
    return parse(text, reviver);
  });
  const value = readYamlMapping(['k: {"\\\\":1,"a":[{"\\u005c":2}]}'], 1, 'card meta block', yamlBudget()).get('k')?.value;
  assert.deepEqual(value, { '\\': 1, a: [{ '\\': 2 }] });
  assert.deepEqual(parsed.filter((text) => BACKSLASH_KEY.test(text)), []);
});
