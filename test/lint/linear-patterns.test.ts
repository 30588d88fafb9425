// Every regular expression that can see request input matches in linear time: the regexp plugin's
// super-linear rules over the source, and over every `pattern` of the OpenAPI document (request
// schemas are checked by Ajv with these patterns, on strings up to the body limit).
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ESLint, Linter } from 'eslint';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';
import { buildForSuite } from '../helpers/server.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const RULES: Linter.RulesRecord = {
  'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
  'regexp/no-super-linear-move': ['error', { report: 'potential', ignoreSticky: true, ignorePartial: false }],
  'regexp/no-misleading-capturing-group': 'error',
};
// Operator configuration (environment variables at start), not request input.
const NOT_REQUEST_INPUT = ['src/config.ts'];

function patternsOf(value: unknown, found: Set<string> = new Set()): Set<string> {
  const stack = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, child] of Object.entries(node)) {
      if (key === 'pattern' && typeof child === 'string') found.add(child);
      else stack.push(child);
    }
  }
  return found;
}

describe('linear-time patterns', () => {
  const suite = buildForSuite();

  test('should have no super-linear regular expression in the source', async () => {
    const eslint = new ESLint({
      cwd: ROOT,
      overrideConfigFile: true,
      overrideConfig: [{
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        // Directives for the project's other lint rules are not this test's business.
        linterOptions: { reportUnusedDisableDirectives: 'off' },
        // typescript-eslint's plugin is present so the source's disable directives for its rules resolve.
        plugins: { regexp, '@typescript-eslint': tseslint.plugin },
        rules: RULES,
      }],
      ignorePatterns: NOT_REQUEST_INPUT,
    });
    const results = await eslint.lintFiles(['src/**/*.ts']);
    const problems = results.flatMap((r) => r.messages.map((m) => `${path.relative(ROOT, r.filePath)}:${m.line} ${m.message}`));
    assert.deepEqual(problems, []);
  });

  test('should have no super-linear pattern in the OpenAPI document', () => {
    const patterns = [...patternsOf(suite.server.app.apiDocument())];
    assert.ok(patterns.length >= 3, `expected the schema patterns, found ${patterns.length}`);
    const linter = new Linter({ configType: 'flat' });
    const problems = patterns.flatMap((pattern) => linter
      .verify(`new RegExp(${JSON.stringify(pattern)}, 'u');`, [{ plugins: { regexp }, rules: RULES }])
      .map((m) => `${pattern}: ${m.message}`));
    assert.deepEqual(problems, []);
  });
});
