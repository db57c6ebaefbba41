// @ts-check
/**
 * `pnpm lint`: ESLint with typescript-eslint's type information, part of `pnpm test`.
 *
 * A focused rule set rather than the recommended-type-checked preset: the rules here
 * catch bugs (a promise nobody awaits, a throw of a non-Error, a forgotten `any`,
 * dead code), the preset's others mostly restate what `tsc --strict` already checks
 * or flag the loose JSON we read on purpose. Excluded, and why:
 * - no-unsafe-* (assignment, member-access, call, return, argument): they follow every
 *   `JSON.parse` and `res.json()` through the code (~560 reports today, none a bug);
 *   parsing at the edges with zod is how this code narrows untrusted data.
 * - require-await: async functions without await are there to satisfy Promise-returning
 *   interfaces (stores, buses); removing `async` would turn their throws synchronous.
 * - unbound-method: it flags kafkajs' payload callbacks and our closure-built objects
 *   (`{ close }`) that never use `this`.
 * - no-base-to-string, restrict-template-expressions: they flag `String(v)` of
 *   ClickHouse row values typed `unknown`, which are scalars by the query's schema.
 * - no-unnecessary-type-assertion: style, not a bug.
 */
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    // *.tmp.* are scratch files, never committed.
    ignores: ['**/node_modules/', '**/dist/', '**/.svc-data/', '.svc-build/', '**/.bench-data*/', '.tmp/', '**/*.tmp.*', 'deploy/'],
  },
  js.configs.recommended,
  // The syntactic set: no-explicit-any, no-unused-vars, no-this-alias, ...
  tseslint.configs.recommended,
  {
    // Each file is checked against its nearest tsconfig.json (the root one, or e.g. a
    // browser package's own).
    files: ['**/*.{ts,tsx,mts,cts}'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A promise that is neither awaited, returned, nor `void`ed can reject unhandled
      // and take the process down (or lose an error). `void` marks fire-and-forget.
      '@typescript-eslint/no-floating-promises': 'error',
      // checksVoidReturn stays on everywhere: Hono's handler and middleware types
      // declare a Promise return, so routes never trip it, while an async listener on
      // an emitter (process.once, server.on, setInterval) is exactly where a rejection
      // escapes every handler.
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      // Passing on what a catch caught (unknown) or an AbortSignal's reason (any) is fine,
      // as only-throw-error allows by default.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true, allowThrowingAny: true }],
      // `return promise` inside try skips the catch and finally around it.
      '@typescript-eslint/return-await': ['error', 'error-handling-correctness-only'],
      // `_` marks a parameter an interface makes us take; `{ omitted, ...rest }` is how
      // a field is dropped from a copy.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
)
