import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers of a service (CONTRIBUTING.md, "The shape of a service"), as rules a tool checks. Each rule is proven
// to fire on a planted violation by scripts/test/layers.test.ts.
const COMPOSITION_ROOT = { group: ['**/app'], message: 'Read the typed deps from src/deps.ts: app.ts is the composition root.' };
const NO_DRIZZLE = {
  group: ['drizzle-orm', 'drizzle-orm/*'],
  allowTypeImports: true,
  message: 'SQL lives in src/repos/: call a named repository function.',
};
const NO_FASTIFY = {
  group: ['fastify', 'fastify/*', '@fastify/*'],
  message: 'Fastify stays in src/routes/: domain code takes an Actor (actorOf(req)) and the deps it uses.',
};
/** A statement run on a database or a transaction handle (`db.select()`, `tx.insert(t)`, `deps.db.execute(sql)`). */
const HANDLE = /^(db|tx|trx|database)$/;
const STATEMENT = 'select|selectDistinct|selectDistinctOn|insert|update|delete|execute|query|\\$count|\\$with|with';
const QUERY_OUTSIDE_REPOS = [
  {
    selector: `CallExpression[callee.type='MemberExpression'][callee.property.name=/^(${STATEMENT})$/][callee.object.name=${HANDLE}]`,
    message: 'SQL lives in src/repos/: a statement on a database or transaction handle belongs in a repository function.',
  },
  {
    selector: `CallExpression[callee.type='MemberExpression'][callee.property.name=/^(${STATEMENT})$/][callee.object.type='MemberExpression'][callee.object.property.name=${HANDLE}]`,
    message: 'SQL lives in src/repos/: a statement on a database or transaction handle belongs in a repository function.',
  },
];

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
  // Routes: declarations and short handlers over domain/ and repos/; no SQL.
  {
    files: ['services/*/src/routes/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_DRIZZLE, COMPOSITION_ROOT] }],
      'no-restricted-syntax': ['error', ...QUERY_OUTSIDE_REPOS],
    },
  },
  // Domain: rules over plain values and an Actor; calls repositories; enqueues jobs by their contract, never runs a
  // handler; knows nothing of Fastify.
  {
    files: ['services/*/src/domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [
        NO_DRIZZLE, NO_FASTIFY, COMPOSITION_ROOT,
        { group: ['**/routes', '**/routes/*', '**/routes/**'], message: 'Domain code is called by routes, never the reverse.' },
        { group: ['**/jobs/*', '!**/jobs/contracts'], message: 'Domain code enqueues a job by its contract (jobs/contracts); a job handler calls domain code, never the reverse.' },
      ] }],
      'no-restricted-syntax': ['error', ...QUERY_OUTSIDE_REPOS],
    },
  },
  // Jobs: handlers over domain/ and repos/, as routes are; no SQL, no Fastify.
  {
    files: ['services/*/src/jobs/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [
        NO_DRIZZLE, NO_FASTIFY, COMPOSITION_ROOT,
        { group: ['**/routes', '**/routes/*', '**/routes/**'], message: 'A job calls domain code and repositories, never a route.' },
      ] }],
      'no-restricted-syntax': ['error', ...QUERY_OUTSIDE_REPOS],
    },
  },
  // Repositories: SQL over the tables; they know no rule above them.
  {
    files: ['services/*/src/repos/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [
        NO_FASTIFY, COMPOSITION_ROOT,
        { group: ['**/domain', '**/domain/*', '**/domain/**', '**/routes', '**/routes/**', '**/jobs', '**/jobs/**'], message: 'Repositories are called by domain code, routes and jobs, and import none of them.' },
      ] }],
    },
  },
  // Outside systems and other modules' clients: wrappers, no rules of the module and no Fastify.
  {
    files: ['services/*/src/{providers,clients}/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [
        NO_DRIZZLE, NO_FASTIFY, COMPOSITION_ROOT,
        { group: ['**/domain', '**/domain/**', '**/routes', '**/routes/**'], message: 'A provider or client wraps an outside system; the module\'s rules call it, never the reverse.' },
      ] }],
      'no-restricted-syntax': ['error', ...QUERY_OUTSIDE_REPOS],
    },
  },
  // Shared plain values and pure functions: no I/O, nothing above them.
  {
    files: ['services/*/src/lib/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [
        NO_DRIZZLE, NO_FASTIFY, COMPOSITION_ROOT,
        { group: ['**/domain', '**/domain/**', '**/routes', '**/routes/**', '**/jobs', '**/jobs/**', '**/repos', '**/repos/**', '**/providers', '**/providers/**', '**/clients', '**/clients/**'], message: 'lib/ holds plain values and pure functions: it imports only lib/.' },
      ] }],
      'no-restricted-syntax': ['error', ...QUERY_OUTSIDE_REPOS],
    },
  },
  {
    files: ['services/*/src/schemas/**/*.ts', 'services/*/src/schemas*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_DRIZZLE, NO_FASTIFY, COMPOSITION_ROOT] }] },
  },
);
