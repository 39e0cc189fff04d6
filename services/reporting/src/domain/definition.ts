import { PERMISSIONS, hasPermission, isGroupLeader, isMember, normalizePermission, permissionKey, requires, type Claims } from '@church/auth';
import type { ModuleName } from '@church/common';

// What a report is: plain data, one file per report under src/reports/. The engine (engine.ts) reads nothing
// else, so adding a report is adding a file and a line in src/reports/index.ts.

/** Where a parameter's value comes from. */
export type ReportParameter = TokenParameter | QueryStringParameter | ResultParameter;

/** A value of the caller's token; `churchId` is always one of these, so no query string can change it. */
export interface TokenParameter {
  keyName: string;
  source: 'token';
  claim: 'churchId' | 'personId';
}

/**
 * A query-string value, validated by type. `default` is used when the value is absent or empty (clients send
 * `campusId=` for "all"): a literal, or for dates `today`, `lastSunday`, `startOfMonth`, `startOfQuarter`, `startOfYear`, each
 * optionally shifted (`today-84d`, `startOfMonth-11m`, `today+4w`); for integers `thisMonth`, `thisYear`.
 * Without a default an optional parameter is `null` (an absent filter means "all") and a required one is a 400.
 */
export interface QueryStringParameter {
  keyName: string;
  source: 'query';
  displayName: string;
  type: 'date' | 'uuid' | 'integer' | 'string';
  required?: boolean;
  default?: string | number;
  /** integers: inclusive bounds */
  min?: number;
  max?: number;
  /** the accepted values, for a dropdown (`value` as sent, `text` as shown) */
  options?: Array<{ value: string; text: string }>;
  /** the church's records a value is picked from, as the staff app lists them for a dropdown (`sourceKey`) */
  list?: 'campus' | 'service' | 'serviceTime' | 'group' | 'fund' | 'month';
}

/**
 * Values read from an earlier query's rows: `list` (default) is the distinct non-null values of `column`,
 * bound as a JSON array text (SQL reads it with `jsonb_array_elements_text($n::jsonb)`); `value` is the
 * first row's value (null when there is none).
 */
export interface ResultParameter {
  keyName: string;
  source: 'result';
  query: string;
  column: string;
  as?: 'list' | 'value';
}

/** One SQL statement against one module's database; `params` name the parameters bound to `$1..$n`. */
export interface ReportQuery {
  keyName: string;
  module: Exclude<ModuleName, 'reporting'>;
  sql: string;
  params: string[];
}

/**
 * How an earlier query's rows join the table, matched on `on` (table column → that query's column):
 * `one` copies `columns` (query column → table column) from the first match, or nulls; `many` repeats the table
 * row once per match (a row without a match is dropped); `exists` sets the table column `flag` to whether a
 * match exists.
 */
export interface TableJoin {
  query: string;
  on: Record<string, string>;
  kind: 'one' | 'many' | 'exists';
  columns?: Record<string, string>;
  flag?: string;
}

/** A column of an output: `value` names the table column; `formatter` tells a client how to show it. */
export interface OutputColumn {
  header: string;
  value: string;
  formatter: 'string' | 'number' | 'money' | 'date' | 'boolean';
}

/**
 * How a client shows the table: `table` (the columns in order), `barChart` (the first column is the category,
 * an optional middle column splits series, the last is the bar's height) or `tree` (rows nested by the
 * `groupings` columns, in order; the answer carries the nested nodes).
 */
export interface ReportOutput {
  outputType: 'table' | 'barChart' | 'tree';
  columns: OutputColumn[];
  groupings?: string[];
}

/** A permission group: met when the token holds any one of `requireOne` (the spec's permission words). */
export interface PermissionGroup {
  requireOne: string[];
}

export interface ReportDefinition {
  keyName: string;
  /** may name parameters in braces (`Attendance of {groupName}`), filled in on a run */
  displayName: string;
  description: string;
  parameters: ReportParameter[];
  /** run in this order; a query may use result parameters of the queries before it */
  queries: ReportQuery[];
  /** the table: the rows of `from`, joined with other queries' rows in order, then sorted */
  table: { from: string; joins?: TableJoin[]; sort?: string[] };
  outputs: ReportOutput[];
  /** every group must be met */
  permissions: PermissionGroup[];
  /** per-statement limit; the service's REPORT_TIMEOUT_MS when absent */
  timeoutMs?: number;
}

/** A definition checked once at start, with its permission groups as rules over the caller's claims. */
export interface LoadedReport {
  definition: ReportDefinition;
  permissionRules: Array<(auth: Claims) => boolean>;
}

/**
 * A permission group as a rule over the caller's claims: met when they hold any one of its words, each read as
 * `requires` of `@church/auth` reads it (which refuses, here at load, a word it does not know): a permission of
 * reporting's API, the spec's `Member` (People.View Members, or a Member or Staff status) or `Group Leader`
 * (leads a group). None of them reads a request, so the domain checks them over an Actor.
 */
function anyOf(words: string[]): (auth: Claims) => boolean {
  const text = words.join(' or ');
  requires(text);
  const checks = text.split(/\s+or\s+/i).map((word): ((auth: Claims) => boolean) => {
    const named = word.trim().toLowerCase();
    if (named === 'member') return isMember;
    if (named === 'group leader') return isGroupLeader;
    return (auth) => hasPermission(auth, word, 'ReportingApi');
  });
  return (auth) => checks.some((check) => check(auth));
}

/** Permission words a group may name: the permission reference, and the spec's `Member` and `Group Leader`. */
const KNOWN_TERMS = new Set([...PERMISSIONS.map((p) => permissionKey(p.contentType, p.action).toLowerCase()), 'member', 'groupleader']);

const DATE_DEFAULT = /^(today|lastSunday|startOfMonth|startOfQuarter|startOfYear)([+-]\d+[dwmy])?$/;

/**
 * Checks a definition's internal consistency: unique names, every bound parameter known before its query
 * runs (the order is the dependency order), placeholders matching the bound list, joins and outputs naming
 * queries and columns that exist, permission words the auth package knows. Throws naming the problem.
 */
export function loadReport(def: ReportDefinition): LoadedReport {
  const fail = (msg: string): never => {
    throw new Error(`report ${def.keyName}: ${msg}`);
  };
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(def.keyName)) fail('keyName must be letters and digits');
  const paramNames = new Set<string>();
  for (const p of def.parameters) {
    if (paramNames.has(p.keyName)) fail(`parameter ${p.keyName} is declared twice`);
    paramNames.add(p.keyName);
    if (p.source === 'query' && typeof p.default === 'string' && p.type === 'date' && !DATE_DEFAULT.test(p.default) && !/^\d{4}-\d{2}-\d{2}$/.test(p.default)) {
      fail(`parameter ${p.keyName} has an unknown date default ${p.default}`);
    }
    if (p.source === 'result' && !def.queries.some((q) => q.keyName === p.query)) fail(`parameter ${p.keyName} reads unknown query ${p.query}`);
  }
  if (!def.parameters.some((p) => p.source === 'token' && p.claim === 'churchId' && p.keyName === 'churchId')) fail('has no churchId parameter from the token');
  const ran = new Set<string>();
  for (const q of def.queries) {
    if (ran.has(q.keyName)) fail(`query ${q.keyName} is declared twice`);
    for (const name of q.params) {
      const param = def.parameters.find((p) => p.keyName === name) ?? fail(`query ${q.keyName} binds unknown parameter ${name}`);
      if (param.source === 'result' && !ran.has(param.query)) fail(`query ${q.keyName} binds ${name}, which needs query ${param.query} to run first`);
    }
    const highest = Math.max(0, ...[...q.sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    if (highest !== q.params.length) fail(`query ${q.keyName} uses $${highest} but binds ${q.params.length} parameters`);
    if (!q.params.includes('churchId')) fail(`query ${q.keyName} does not bind churchId`);
    ran.add(q.keyName);
  }
  if (!ran.has(def.table.from)) fail(`table reads unknown query ${def.table.from}`);
  for (const j of def.table.joins ?? []) {
    if (!ran.has(j.query)) fail(`table joins unknown query ${j.query}`);
    if (j.kind === 'exists' && !j.flag) fail(`exists join of ${j.query} needs a flag column`);
    if (j.kind !== 'exists' && !j.columns) fail(`join of ${j.query} copies no columns`);
  }
  for (const o of def.outputs) {
    if (o.outputType === 'tree' && !o.groupings?.length) fail('a tree output needs groupings');
    if (o.outputType === 'barChart' && (o.columns.length < 2 || o.columns.length > 3)) fail('a bar chart has a category, an optional series and a value column');
  }
  if (def.timeoutMs !== undefined && !(Number.isInteger(def.timeoutMs) && def.timeoutMs >= 1 && def.timeoutMs <= 60_000)) fail('timeoutMs must be 1 to 60000');
  if (!def.permissions.length) fail('states no permission group');
  const permissionRules = def.permissions.map((g) => {
    if (!g.requireOne.length) fail('has an empty permission group');
    for (const term of g.requireOne) if (!KNOWN_TERMS.has(normalizePermission(term).toLowerCase())) fail(`names unknown permission ${term}`);
    return anyOf(g.requireOne);
  });
  return { definition: def, permissionRules };
}

/** Definitions by key name (key names compare case-insensitively, like the paths). */
export class ReportCatalog {
  private readonly byKey = new Map<string, LoadedReport>();

  constructor(definitions: ReportDefinition[]) {
    for (const def of definitions) {
      const key = def.keyName.toLowerCase();
      if (this.byKey.has(key)) throw new Error(`report ${def.keyName} is defined twice`);
      this.byKey.set(key, loadReport(def));
    }
  }

  get(keyName: string): LoadedReport | undefined {
    return this.byKey.get(keyName.toLowerCase());
  }

  /** Every report, in the order they were given. */
  all(): LoadedReport[] {
    return [...this.byKey.values()];
  }

  get size(): number {
    return this.byKey.size;
  }
}
