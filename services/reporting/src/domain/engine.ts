import type { Claims } from '@church/auth';
import { unauthorized, type Actor } from '@church/common';
import { failureReason, ReportQueryError, type ModuleQuery, type Row } from '../clients/module-query';
import { outputView, type OutputView } from './app-view';
import type { LoadedReport, ReportDefinition, TableJoin } from './definition';
import { resolveParameters, type ParamValue } from './parameters';

// Runs a report definition: permission groups, parameters, its queries in order (each bound, read-only,
// time-limited, on the module that owns the data), then the table joined and sorted in memory, and the outputs.

/** A node of a tree output: the rows sharing `value` in `column`, nested by the next grouping. */
export interface TreeNode {
  column: string;
  value: unknown;
  children?: TreeNode[];
  rows?: Row[];
}

export type OutputResult = OutputView & { nodes?: TreeNode[] };

export interface ReportResult {
  keyName: string;
  displayName: string;
  description: string;
  /** the effective query-string parameters of this run (defaults filled in) */
  parameters: Record<string, ParamValue>;
  table: Row[];
  outputs: OutputResult[];
}

export interface RunContext {
  /** who runs it: their permissions, their church (bound as `churchId`), their log */
  actor: Actor;
  query: Record<string, unknown>;
  source: ModuleQuery;
  defaultTimeoutMs: number;
  now?: Date;
}

/** Whether the caller meets every permission group of the report (each group: any one of its permissions). */
export function mayRun(report: LoadedReport, auth: Claims): boolean {
  return report.permissionRules.every((rule) => rule(auth));
}

/** The reports the caller may run (every permission group met), in the catalog's order. */
export function reportsFor(reports: Iterable<LoadedReport>, auth: Claims): LoadedReport[] {
  return [...reports].filter((report) => mayRun(report, auth));
}

/** Runs a report for the caller; 401 when a permission group is not met, 400 for bad parameters, 502 when a query fails. */
export async function runReport(report: LoadedReport, ctx: RunContext): Promise<ReportResult> {
  const def = report.definition;
  if (!mayRun(report, ctx.actor)) {
    throw unauthorized(`Missing permission: ${def.permissions.map((g) => g.requireOne.join(' or ')).join(' and ')}`);
  }
  const values: Map<string, ParamValue | string[]> = resolveParameters(def, ctx.actor, ctx.query, ctx.now);
  const results = new Map<string, Row[]>();
  // Each query starts as soon as the queries whose results it binds have finished: independent ones (the
  // names of a report's groups and of its people, say) run side by side.
  const running = new Map<string, Promise<void>>();
  for (const q of def.queries) {
    const needs = q.params.flatMap((name) => {
      const p = def.parameters.find((x) => x.keyName === name);
      return p?.source === 'result' ? [running.get(p.query)!] : [];
    });
    running.set(
      q.keyName,
      Promise.all(needs).then(async () => {
        // Lists travel as JSON text: the same on `pg` and PGlite, and through the internal route's JSON body.
        const bound = q.params.map((name) => {
          const v = values.get(name) ?? null;
          return Array.isArray(v) ? JSON.stringify(v) : v;
        });
        let rows: Row[];
        try {
          rows = await ctx.source.run(q.module, q.sql, bound, def.timeoutMs ?? ctx.defaultTimeoutMs);
        } catch (err) {
          // Any failure, the callee's 4xx included (it refused our signature, say), is a 502 naming the query.
          ctx.actor.log.warn({ err, report: def.keyName, query: q.keyName, module: q.module }, 'report query failed');
          throw new ReportQueryError(q.keyName, q.module, failureReason(err), err);
        }
        results.set(q.keyName, rows);
        for (const p of def.parameters) {
          if (p.source !== 'result' || p.query !== q.keyName) continue;
          if (p.as === 'value') values.set(p.keyName, (rows[0]?.[p.column] as ParamValue | undefined) ?? null);
          else values.set(p.keyName, distinct(rows, p.column));
        }
      }),
    );
  }
  // The first failure answers; the others are awaited so none is left unhandled.
  const settled = await Promise.allSettled(running.values());
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const table = buildTable(def, results);
  const parameters: Record<string, ParamValue> = {};
  for (const p of def.parameters) if (p.source === 'query') parameters[p.keyName] = (values.get(p.keyName) as ParamValue) ?? null;
  return {
    keyName: def.keyName,
    displayName: def.displayName.replace(/\{(\w+)\}/g, (_m, name: string) => String(values.get(name) ?? '')),
    description: def.description,
    parameters,
    table,
    outputs: def.outputs.map((o) => (o.outputType === 'tree' ? { ...outputView(o), nodes: tree(table, o.groupings ?? []) } : outputView(o))),
  };
}

/** Distinct non-null values of a column, as text, in first-seen order. */
function distinct(rows: Row[], column: string): string[] {
  const seen = new Set<string>();
  for (const r of rows) if (r[column] !== null && r[column] !== undefined) seen.add(String(r[column]));
  return [...seen];
}

const keyOf = (row: Row, columns: string[]): string | null => {
  const parts: string[] = [];
  for (const c of columns) {
    const v = row[c];
    if (v === null || v === undefined) return null;
    parts.push(String(v));
  }
  return parts.join('\u0000');
};

/** The rows of the table's query, joined with the others in order, then sorted. */
export function buildTable(def: ReportDefinition, results: Map<string, Row[]>): Row[] {
  let table = (results.get(def.table.from) ?? []).map((r) => ({ ...r }));
  for (const join of def.table.joins ?? []) table = applyJoin(table, join, results.get(join.query) ?? []);
  if (def.table.sort?.length) table.sort(compareBy(def.table.sort));
  return table;
}

function applyJoin(table: Row[], join: TableJoin, rows: Row[]): Row[] {
  const tableCols = Object.keys(join.on);
  const queryCols = tableCols.map((c) => join.on[c]!);
  const index = new Map<string, Row[]>();
  for (const r of rows) {
    const k = keyOf(r, queryCols);
    if (k !== null) index.set(k, [...(index.get(k) ?? []), r]);
  }
  const copy = (target: Row, match: Row | undefined) => {
    for (const [from, to] of Object.entries(join.columns ?? {})) target[to] = match?.[from] ?? null;
    return target;
  };
  if (join.kind === 'exists') return table.map((r) => ({ ...r, [join.flag!]: index.has(keyOf(r, tableCols) ?? '\u0001') }));
  if (join.kind === 'one') return table.map((r) => copy({ ...r }, index.get(keyOf(r, tableCols) ?? '\u0001')?.[0]));
  return table.flatMap((r) => (index.get(keyOf(r, tableCols) ?? '\u0001') ?? []).map((m) => copy({ ...r }, m)));
}

/** Ascending by each column in turn; numbers by value, text by collation, nulls last. */
function compareBy(columns: string[]) {
  const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
  return (a: Row, b: Row) => {
    for (const c of columns) {
      const x = a[c];
      const y = b[c];
      if (x === y) continue;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      const d = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
      if (d !== 0) return d;
    }
    return 0;
  };
}

/** Rows nested by the grouping columns, groups in the table's order. */
function tree(rows: Row[], groupings: string[]): TreeNode[] {
  const [column, ...rest] = groupings;
  if (!column) return [];
  const groups = new Map<string, { value: unknown; rows: Row[] }>();
  for (const r of rows) {
    const k = JSON.stringify(r[column] ?? null);
    if (!groups.has(k)) groups.set(k, { value: r[column] ?? null, rows: [] });
    groups.get(k)!.rows.push(r);
  }
  return [...groups.values()].map((g) => (rest.length ? { column, value: g.value, children: tree(g.rows, rest) } : { column, value: g.value, rows: g.rows }));
}
