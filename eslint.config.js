// ESLint 9 flat config: typescript-eslint's strict rules, type-aware, and eslint-plugin-regexp's
// recommended rules (among them: no regular expression that can backtrack super-linearly on
// hostile input). `npm run lint` runs it; CI (.ci/run) fails on any finding.
import js from '@eslint/js';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/', 'data/', '.tmp/', 'openapi.json', 'bench/results/', 'dist/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  regexp.configs['flat/recommended'],
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Numbers in messages are what a template is for.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `x => void-call()` is the usual callback shape (timers, event handlers, Fastify's done).
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Interfaces decide that a method is async (Kysely's driver, Fastify handlers and hooks),
      // whether or not this implementation awaits.
      '@typescript-eslint/require-await': 'off',
      // Row values are converted on purpose: drivers hand back what the column types do not say
      // (PostgreSQL int8 and numeric as strings).
      '@typescript-eslint/no-unnecessary-type-conversion': 'off',
      // Sanitisers and parsers of hostile text must name the control characters they refuse.
      'no-control-regex': 'off',
      // A leading underscore says "unused on purpose" (a destructured field left out, a callback's slot).
      '@typescript-eslint/no-unused-vars': ['error', {
        argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true,
      }],
    },
  },
  {
    // Migrations are frozen in time: they see the database as it was, untyped (Kysely's convention).
    files: ['src/db/migrations/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Response bodies are JSON the tests (and the bench) read freely; every one is checked at run time against the
    // served OpenAPI document (test/helpers/openapi.ts). Tests also guard what the types promise
    // (`entries[0]?.status`), so a broken promise fails as an assertion, not a TypeError. node:test's
    // describe and test return promises the runner awaits.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowArray: true }],
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }],
      }],
    },
  },
  {
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly' } },
  },
  {
    // The pages' scripts run in the browser (served as files: the CSP forbids inline script).
    files: ['src/surfaces/web/assets/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries([
        'window', 'document', 'navigator', 'location', 'CSS', 'Element', 'HTMLElement', 'HTMLInputElement',
        'HTMLFormElement', 'HTMLButtonElement', 'Event', 'KeyboardEvent', 'fetch', 'FormData', 'URL', 'URLSearchParams', 'console', 'setTimeout', 'clearTimeout',
      ].map((name) => [name, 'readonly'])),
    },
  },
);
