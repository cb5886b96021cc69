import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', '.bench/**', '.dependency-cruiser.cjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  { files: ['src/cli/**', 'bench/**', 'test/**', 'scripts/**'], rules: { 'no-console': 'off' } },
  { files: ['test/**'], rules: { '@typescript-eslint/no-unused-expressions': 'off' } },
  // The pages' scripts run in the browser as sent: browser globals only, and a name that is not
  // one (a typo, a Node global) is an error.
  {
    files: ['src/**/static/**/*.js'],
    ...js.configs.recommended,
    languageOptions: { sourceType: 'script', globals: globals.browser },
  },
  { files: ['scripts/**/*.mjs'], languageOptions: { globals: globals.node } },
);
