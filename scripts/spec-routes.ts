/**
 * Writes `packages/common/src/spec-routes.json`: the spec's endpoint rows (method, path, table, description, auth,
 * permission) that the OpenAPI documents take their tags, summaries and descriptions from (docs.ts). The spec
 * lives outside the repository (`../shared/spec`), so its rows are copied in and committed; rerun this after the
 * spec's `routes.json` changes.
 *
 * The table of a row is the heading of the endpoint table its `source` line sits under, without the base path:
 * ``### People (`/membership/people`)`` gives `People`.
 *
 * Usage: `npx tsx scripts/spec-routes.ts [SPEC_DIR]` (default `../shared/spec`), `--check` exits 1 when the
 * committed file is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'packages', 'common', 'src', 'spec-routes.json');

interface SpecRow {
  module: string;
  method: string;
  path: string;
  auth: 'JWT' | 'Public' | 'Internal';
  permission: string | null;
  description: string;
  source: string;
}

/** One row of the committed file; `table` is the spec table the route is listed in (the document's tag). */
export interface SpecRoute {
  method: string;
  path: string;
  table: string;
  description: string;
  auth: 'JWT' | 'Public' | 'Internal';
  permission: string | null;
}

function tableOf(lines: string[], line: number, source: string): string {
  for (let i = line - 1; i >= 0; i--) {
    const heading = /^###\s+(.+?)\s*$/.exec(lines[i]);
    if (heading) return heading[1].replace(/\s*\(`.*$/, '').trim();
    if (/^##\s/.test(lines[i])) break;
  }
  throw new Error(`no endpoint table heading above ${source}`);
}

export function specRoutes(specDir: string): SpecRoute[] {
  const rows = JSON.parse(readFileSync(path.join(specDir, 'routes.json'), 'utf8')) as SpecRow[];
  const docs = new Map<string, string[]>();
  return rows.map((row) => {
    const [file, line] = row.source.split(':');
    if (!docs.has(file)) docs.set(file, readFileSync(path.join(specDir, file), 'utf8').split('\n'));
    return {
      method: row.method,
      path: row.path,
      table: tableOf(docs.get(file)!, Number(line), row.source),
      description: row.description,
      auth: row.auth,
      permission: row.permission,
    };
  });
}

/** One row a line: small diffs when the spec changes. */
export function render(routes: SpecRoute[]): string {
  return `[\n${routes.map((r) => `  ${JSON.stringify(r)}`).join(',\n')}\n]\n`;
}

function main() {
  const args = process.argv.slice(2);
  const specDir = path.resolve(args.find((a) => !a.startsWith('--')) ?? path.join(ROOT, '..', 'shared', 'spec'));
  const text = render(specRoutes(specDir));
  if (args.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(OUT, 'utf8');
    } catch {
      // missing: out of date
    }
    if (current !== text) {
      console.error(`${path.relative(ROOT, OUT)} is out of date: run npx tsx scripts/spec-routes.ts`);
      process.exit(1);
    }
    return;
  }
  writeFileSync(OUT, text);
  const tables = new Set(JSON.parse(text).map((r: SpecRoute) => r.table)).size;
  console.log(`wrote ${path.relative(ROOT, OUT)}: ${JSON.parse(text).length} routes in ${tables} tables`);
}

if (require.main === module) main();
