/**
 * Bundles every deployable for production: `dist/<name>/bundle/{main,worker,migrate}.js` (+ `dist/<name>/drizzle`
 * with the shared outbox's migrations in `drizzle/outbox`,
 * and `dist/<name>/node-flags` when the deployable has Node flags).
 *
 * Workspace packages (@church/*) are TypeScript sources, so they are compiled into the bundle; third-party packages
 * stay external and are installed next to the bundle at deploy time (`pnpm deploy --prod`, see the Dockerfile).
 * The layout keeps `path.join(__dirname, '..', 'drizzle')` in services/<m>/src/app.ts pointing at the copied
 * migrations, because __dirname of a CommonJS bundle is the bundle's folder.
 *
 * Usage: `pnpm build` (everything) or `pnpm build membership gateway` (some deployables).
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const ROOT = path.resolve(__dirname, '..');
const MODULES = ['membership', 'attendance', 'giving', 'messaging', 'content', 'doing', 'reporting'] as const;

interface Deployable {
  name: string;
  /** folder holding src/ (and drizzle/ for services) */
  dir: string;
  entries: string[];
}

const DEPLOYABLES: Deployable[] = [
  ...MODULES.map((m) => ({ name: m, dir: path.join(ROOT, 'services', m), entries: ['main', 'worker', 'migrate'] })),
  { name: 'gateway', dir: path.join(ROOT, 'gateway'), entries: ['main'] },
];

/** Bare specifiers outside the workspace are left to node_modules; @church/* and relative paths get bundled. */
const externalThirdParty: Plugin = {
  name: 'external-third-party',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@church/')) return undefined;
      if (path.isAbsolute(args.path)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

async function buildOne(d: Deployable): Promise<void> {
  const out = path.join(ROOT, 'dist', d.name);
  rmSync(out, { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries(d.entries.map((e) => [e, path.join(d.dir, 'src', `${e}.ts`)])),
    outdir: path.join(out, 'bundle'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    // keeps stack traces and Fastify plugin names readable; the bundles are not shipped to browsers
    minify: false,
    keepNames: true,
    plugins: [externalThirdParty],
    logLevel: 'warning',
  });
  const migrations = path.join(d.dir, 'drizzle');
  if (existsSync(migrations)) {
    cpSync(migrations, path.join(out, 'drizzle'), { recursive: true });
    // The shared job outbox's migrations (packages/common/drizzle/outbox), found beside the bundle as in the source.
    cpSync(path.join(ROOT, 'packages', 'common', 'drizzle', 'outbox'), path.join(out, 'drizzle', 'outbox'), { recursive: true });
  }
  // the deployable's Node flags, read by docker/entrypoint.sh
  const flags = path.join(d.dir, 'node-flags');
  if (existsSync(flags)) cpSync(flags, path.join(out, 'node-flags'));
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !DEPLOYABLES.some((d) => d.name === w));
  if (unknown.length) throw new Error(`unknown deployable(s): ${unknown.join(', ')}`);
  const selected = wanted.length ? DEPLOYABLES.filter((d) => wanted.includes(d.name)) : DEPLOYABLES;
  const started = Date.now();
  for (const d of selected) await buildOne(d);
  console.log(`built ${selected.map((d) => d.name).join(', ')} into dist/ in ${Date.now() - started} ms`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
