import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The import graph of the source (packages, services, gateway, fleet) has no circle: a module of one layer never
// needs, through any chain of value imports, a module that needs it. Type-only imports are erased and do not count.

const root = path.resolve(__dirname, '../..');

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'drizzle' || entry.name === 'test') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sources(full, out);
    else if (full.endsWith('.ts') && full.includes(`${path.sep}src${path.sep}`)) out.push(full);
  }
  return out;
}

/** Each file's value imports of other source files (relative specifiers resolved to a file or a folder's index). */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const resolve = (from: string, spec: string) => {
    if (!spec.startsWith('.')) return undefined;
    const base = path.join(path.dirname(from), spec);
    return [`${base}.ts`, path.join(base, 'index.ts')].find((f) => known.has(f));
  };
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const deps = new Set<string>();
    for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)) {
      if (m[1]) continue;
      const target = resolve(file, m[2]!);
      if (target) deps.add(target);
    }
    graph.set(file, [...deps]);
  }
  return graph;
}

/** The strongly connected parts of more than one file (each is a circle of imports). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const part: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        part.push(path.relative(root, w));
      } while (w !== v);
      if (part.length > 1) found.push(part);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import graph', () => {
  it('finds a planted circle', () => {
    const a = path.join(root, 'services/x/src/a.ts');
    const b = path.join(root, 'services/x/src/b.ts');
    expect(circles(new Map([[a, [b]], [b, [a]]]))).toHaveLength(1);
    expect(circles(new Map([[a, [b]], [b, []]]))).toEqual([]);
  });

  it('has no circle in the source', () => {
    const files = ['packages', 'services', 'gateway', 'fleet'].flatMap((d) => sources(path.join(root, d)));
    expect(files.length).toBeGreaterThan(500);
    expect(circles(importGraph(files))).toEqual([]);
  });
});
