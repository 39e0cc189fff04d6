/** One Jest run over every package, service, the gateway and the fleet; each test file gets its own database. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/gateway', '<rootDir>/fleet', '<rootDir>/scripts'],
  testMatch: ['**/test/**/*.test.ts'],
  transform: { '^.+\\.(ts|js)$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }] },
  // A few dependencies ship ESM only; compile those to CommonJS like our own files.
  transformIgnorePatterns: ['/node_modules/(?!(\\.pnpm/(cookie|feed|marked)@[^/]+/node_modules/)?(cookie|feed|marked)/)'],
  testTimeout: 60_000,
  maxWorkers: process.env.JEST_WORKERS ?? '50%',
};
