// Lint step of `make test`: above all, no regular expression in the project may backtrack super-linearly
// (issue 7: every input is hostile, and a backtracking pattern over SQL text or a header stalls the event loop).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import regexp from 'eslint-plugin-regexp';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'lib/tpch/dists.dss'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended, regexp.configs['flat/recommended']],
    languageOptions: { parserOptions: { ecmaVersion: 2022, sourceType: 'module' } },
    rules: {
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': ['error', { report: 'potential', ignoreSticky: false, ignorePartial: false }],
      'regexp/no-misleading-capturing-group': 'error',
      // Patterns built at run time escape the checks above: every pattern must be a literal.
      'no-restricted-syntax': ['error', {
        selector: "NewExpression[callee.name='RegExp'][arguments.0.type!='Literal'], CallExpression[callee.name='RegExp'][arguments.0.type!='Literal']",
        message: 'Build no regular expression at run time: the linear-time checks cannot see it. Scan with code, or use a literal.',
      }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // Specs may build patterns from their own fixed inputs (reference implementations, expected texts).
    files: ['spec/**/*.ts', 'bench/**/*.ts'],
    // Response bodies read off the wire are untyped JSON by nature.
    rules: { 'no-restricted-syntax': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
