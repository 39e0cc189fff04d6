import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/drizzle/**', '.data/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  // One shape for every service (CONTRIBUTING.md): SQL lives in src/repos/, and app.ts is the composition root that
  // nothing of the module imports back (typed deps come from src/deps.ts).
  {
    files: ['services/*/src/routes/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['drizzle-orm', 'drizzle-orm/*'], message: 'SQL lives in src/repos/: a route calls a named repository function.' },
        { group: ['**/app'], message: 'Read the typed deps from src/deps.ts: app.ts is the composition root.' },
      ] }],
    },
  },
  {
    files: ['services/*/src/{jobs,domain,repos,providers,clients,schemas}/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/app'], message: 'Read the typed deps from src/deps.ts: app.ts is the composition root.' }] }],
    },
  },
);
