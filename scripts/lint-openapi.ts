/**
 * Lints every module's OpenAPI document with Redocly's recommended rules (a CI step).
 *
 * Builds each module's app as its tests do (test config, an in-memory PGlite, no outside services), writes the
 * document it serves at `/<module>/docs/json` to a temporary file and runs `redocly lint --extends recommended` on
 * it. Prints each module's error and warning counts; exits 1 when any document has an error.
 *
 * Usage: `npx tsx scripts/lint-openapi.ts [module ...] [--keep DIR] [--verbose]`
 *   --keep DIR  write the documents to DIR and leave them there
 *   --verbose   print Redocly's findings, not only the counts
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { baseConfig, createService, loadConfig, openDatabase, type ServiceDefinition } from '../packages/common/src';

const ROOT = path.resolve(__dirname, '..');
/** any 32+ characters: the app is built only to read its document */
const SECRET = 'openapi-lint-openapi-lint-openapi-lint-0';
const MODULES = ['membership', 'attendance', 'giving', 'messaging', 'content', 'doing', 'reporting'] as const;

interface Finding {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location?: Array<{ pointer?: string }>;
}

/** The module's document as its app serves it, built without a migrated database (the document needs none). */
async function documentOf(module: string): Promise<unknown> {
  const { definition } = (await import(path.join(ROOT, 'services', module, 'src', 'app.ts'))) as { definition: ServiceDefinition };
  const { configSchema } = (await import(path.join(ROOT, 'services', module, 'src', 'config.ts'))) as { configSchema: typeof baseConfig };
  const dataDir = mkdtempSync(path.join(tmpdir(), 'openapi-app-'));
  const config = loadConfig(configSchema, { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, JWT_SECRET: SECRET, INTERNAL_SECRET: SECRET, ENCRYPTION_KEY: SECRET, REVOCATION_POLL_MS: '0' });
  const database = await openDatabase({});
  const app = await createService(definition, config, { overrides: { database }, logger: false });
  try {
    const res = await app.inject({ method: 'GET', url: `/${module}/docs/json` });
    if (res.statusCode !== 200) throw new Error(`GET /${module}/docs/json answered ${res.statusCode}`);
    return res.json();
  } finally {
    await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function lint(file: string): Finding[] {
  let out: string;
  try {
    out = execFileSync('npx', ['redocly', 'lint', '--extends', 'recommended', '--format', 'json', '--max-problems', '100000', file], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 2 ** 20,
    });
  } catch (err) {
    // redocly exits 1 when it finds errors; the JSON report is still on stdout
    out = (err as { stdout?: string }).stdout ?? '';
    if (!out.trim()) throw err;
  }
  return (JSON.parse(out.slice(out.indexOf('{'))) as { problems: Finding[] }).problems;
}

async function main() {
  const args = process.argv.slice(2);
  const keepAt = args.indexOf('--keep');
  const keep = keepAt >= 0 ? path.resolve(args[keepAt + 1]) : undefined;
  const verbose = args.includes('--verbose');
  const named = args.filter((a, i) => !a.startsWith('--') && (keepAt < 0 || i !== keepAt + 1));
  const modules = named.length ? named : [...MODULES];
  const dir = keep ?? mkdtempSync(path.join(tmpdir(), 'openapi-'));
  mkdirSync(dir, { recursive: true });
  let failed = false;
  try {
    for (const module of modules) {
      const file = path.join(dir, `${module}.json`);
      writeFileSync(file, JSON.stringify(await documentOf(module), null, 2));
      const problems = lint(file);
      const errors = problems.filter((p) => p.severity === 'error');
      const warnings = problems.filter((p) => p.severity !== 'error');
      console.log(`${module}: ${errors.length} errors, ${warnings.length} warnings`);
      const byRule = new Map<string, number>();
      for (const p of problems) byRule.set(`${p.severity} ${p.ruleId}`, (byRule.get(`${p.severity} ${p.ruleId}`) ?? 0) + 1);
      if (problems.length) console.log(`  ${[...byRule].map(([rule, n]) => `${rule}: ${n}`).join(', ')}`);
      if (verbose) for (const p of problems) console.log(`  ${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer ?? ''}: ${p.message}`);
      if (errors.length) failed = true;
    }
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  if (failed) {
    console.error('OpenAPI lint failed: fix the errors above (npx tsx scripts/lint-openapi.ts <module> --verbose)');
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
