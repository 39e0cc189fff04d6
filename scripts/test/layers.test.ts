import { execFileSync } from 'node:child_process';
import path from 'node:path';

// The layer rules of eslint.config.mjs (CONTRIBUTING.md, "The shape of a service") are checked to fire on planted
// violations, and to stay quiet on the same code where it belongs: a rule that cannot fail proves nothing.

const root = path.resolve(__dirname, '../..');

interface Case {
  file: string;
  code: string;
}

/** Lints each planted file as if it sat at `file` in the repository (one ESLint process for all cases). */
function lint(cases: Case[]): string[][] {
  const script = `
    const { ESLint } = require('eslint');
    const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
    (async () => {
      const eslint = new ESLint({ cwd: process.cwd() });
      const out = [];
      for (const c of cases) {
        const [result] = await eslint.lintText(c.code, { filePath: require('path').join(process.cwd(), c.file) });
        out.push(result.messages.map((m) => (m.ruleId ?? 'fatal') + ' ' + m.message));
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: root, input: JSON.stringify(cases), encoding: 'utf8' })) as string[][];
}

const QUERY = 'no-restricted-syntax SQL lives in src/repos/';
const IMPORT = '@typescript-eslint/no-restricted-imports';

const planted: Array<Case & { name: string; fires: string | null }> = [
  // queries only in repos/
  { name: 'a statement on deps.db in domain/', file: 'services/giving/src/domain/planted.ts', fires: QUERY, code: `export const f = (deps: { db: any }) => deps.db.select().from('t');\n` },
  { name: 'an insert on tx in a route without importing drizzle', file: 'services/doing/src/routes/planted.ts', fires: QUERY, code: `export const f = (tx: any, t: unknown) => tx.insert(t).values({});\n` },
  { name: 'raw SQL executed in a job', file: 'services/content/src/jobs/planted.ts', fires: QUERY, code: `export const f = (db: any, q: unknown) => db.execute(q);\n` },
  { name: 'a drizzle operator imported into domain/', file: 'services/membership/src/domain/planted.ts', fires: `${IMPORT} 'drizzle-orm' import is restricted`, code: `import { eq } from 'drizzle-orm';\nexport const f = eq;\n` },
  { name: 'the same statement in a repository', file: 'services/giving/src/repos/planted.ts', fires: null, code: `export const f = (db: any) => db.select().from('t');\n` },
  { name: "a Map's delete in domain/", file: 'services/giving/src/domain/planted.ts', fires: null, code: `export const f = (seen: Map<string, number>) => seen.delete('a');\n` },
  { name: "drizzle's types in domain/", file: 'services/giving/src/domain/planted.ts', fires: null, code: `import type { SQL } from 'drizzle-orm';\nexport type F = SQL;\n` },
  // repos import no domain
  { name: 'a repository importing domain/', file: 'services/doing/src/repos/planted.ts', fires: `${IMPORT} '../domain/autofill' import is restricted`, code: `import { x } from '../domain/autofill';\nexport const f = x;\n` },
  { name: 'a repository importing a job', file: 'services/doing/src/repos/planted.ts', fires: `${IMPORT} '../jobs/card-webhook' import is restricted`, code: `import { x } from '../jobs/card-webhook';\nexport const f = x;\n` },
  // no Fastify below the routes
  { name: "Fastify's request type in domain/", file: 'services/content/src/domain/planted.ts', fires: `${IMPORT} 'fastify' import is restricted`, code: `import type { FastifyRequest } from 'fastify';\nexport type F = FastifyRequest;\n` },
  { name: "Fastify's instance type in a job", file: 'services/giving/src/jobs/planted.ts', fires: `${IMPORT} 'fastify' import is restricted`, code: `import type { FastifyInstance } from 'fastify';\nexport type F = FastifyInstance;\n` },
  { name: 'Fastify in a route', file: 'services/giving/src/routes/planted.ts', fires: null, code: `import type { FastifyInstance } from 'fastify';\nexport type F = FastifyInstance;\n` },
  // lib/ is plain values: it imports nothing above it
  { name: 'lib/ importing a repository', file: 'services/giving/src/lib/planted.ts', fires: `${IMPORT} '../repos/funds' import is restricted`, code: `import { x } from '../repos/funds';\nexport const f = x;\n` },
  { name: 'a repository importing lib/', file: 'services/giving/src/repos/planted.ts', fires: null, code: `import { x } from '../lib/money';\nexport const f = x;\n` },
  // domain enqueues jobs by contract and never runs a handler
  { name: 'domain/ importing a job handler', file: 'services/giving/src/domain/planted.ts', fires: `${IMPORT} '../jobs/webhooks' import is restricted`, code: `import { handle } from '../jobs/webhooks';\nexport const f = handle;\n` },
  { name: "domain/ importing the module's job contracts", file: 'services/giving/src/domain/planted.ts', fires: null, code: `import { receiptJob } from '../jobs/contracts';\nexport const f = receiptJob;\n` },
];

describe('the layer rules of eslint.config.mjs', () => {
  const results = lint(planted);

  it.each(planted.map((c, i) => [c.name, c, i] as const))('%s', (_name, c, i) => {
    // only the layer rules count here (the planted files are not otherwise tidy)
    const fired = results[i]!.filter((m) => m.startsWith('no-restricted-syntax') || m.startsWith(IMPORT));
    if (c.fires === null) expect(fired).toEqual([]);
    else expect(fired.some((m) => m.startsWith(c.fires!))).toBe(true);
  });
});
