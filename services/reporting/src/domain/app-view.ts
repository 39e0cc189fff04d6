import { normalizePermission, PERMISSIONS, permissionKey, SERVER_ADMIN, type PermissionDef } from '@church/auth';
import type { OutputColumn, PermissionGroup, ReportDefinition, ReportOutput, ReportParameter } from './definition';
import { dateDefault } from './parameters';

// A definition as ChurchApps' staff app reads it (B1Admin `components/reporting/`), beside this service's own
// keys: each parameter's `source` in the app's words (`au`, `date`, `dropdown`, `query`) with the list it
// picks from (`sourceKey`) and its default value already worked out (`value`); each permission as
// `{api, contentType, action}`, as the app tests it against the user's permissions; a tree's `groupings` as the
// number of columns each level heads, those columns first.

/** What a parameter's values come from, in the staff app's words (`text`: typed in; the app shows no field for it). */
type AppSource = 'au' | 'date' | 'dropdown' | 'query' | 'text';

/** A parameter as both this service and the staff app read it. */
export function parameterView(p: ReportParameter, now: Date) {
  const own = { ...p, origin: p.source };
  if (p.source === 'token') return { ...own, source: 'au' as AppSource, sourceKey: p.claim };
  if (p.source === 'result') return { ...own, source: 'query' as AppSource, sourceKey: `${p.query}.${p.column}` };
  const value = p.default === undefined ? undefined : p.type === 'date' ? dateDefault(String(p.default), now) : p.type === 'integer' ? String(integerOf(p.default, now)) : String(p.default);
  const source: AppSource = p.type === 'date' ? 'date' : p.list || p.options ? 'dropdown' : 'text';
  const sourceKey = p.type === 'date' ? (p.keyName === 'week' ? 'week' : 'date') : (p.list ?? (p.options ? 'provided' : p.keyName));
  return { ...own, source, sourceKey, ...(value !== undefined ? { value } : {}) };
}

const integerOf = (value: string | number, now: Date) => (value === 'thisMonth' ? now.getUTCMonth() + 1 : value === 'thisYear' ? now.getUTCFullYear() : Number(value));

/** Permission definitions by canonical key (`Donations.ViewSummary`), for the app's `{api, contentType, action}`. */
const BY_KEY = new Map<string, PermissionDef>([...PERMISSIONS, SERVER_ADMIN].map((d) => [permissionKey(d.contentType, d.action).toLowerCase(), d]));

/** One permission word of a group as the app tests it; the spec's `Member` is `People` / `View Members`. */
function permissionView(term: string) {
  const key = normalizePermission(term).toLowerCase();
  const def = BY_KEY.get(key === 'member' ? 'people.viewmembers' : key);
  return def ? { api: def.apiName, contentType: def.contentType, action: def.action } : { api: 'MembershipApi', contentType: term, action: '' };
}

export const permissionsView = (groups: PermissionGroup[]) => groups.map((g) => ({ requireOne: g.requireOne.map(permissionView) }));

/**
 * An output as both read it. A tree's grouping columns come first, each heading its level (`groupings`: how many
 * columns each level heads, one each), then the rest; `groupBy` keeps the grouping columns' names.
 */
export type OutputView = Omit<ReportOutput, 'groupings'> & { groupings?: number[]; groupBy?: string[] };
export function outputView(o: ReportOutput): OutputView {
  if (o.outputType !== 'tree' || !o.groupings?.length) return { outputType: o.outputType, columns: o.columns };
  const heads: OutputColumn[] = o.groupings.map((g) => o.columns.find((c) => c.value === g) ?? { header: g, value: g, formatter: 'string' });
  return { ...o, columns: [...heads, ...o.columns.filter((c) => !o.groupings!.includes(c.value))], groupings: o.groupings.map(() => 1), groupBy: o.groupings };
}

/** The definition as `GET /reports` and `GET /reports/:keyName` answer it: everything but the SQL. */
export function definitionView(def: ReportDefinition, now = new Date()) {
  return {
    keyName: def.keyName,
    displayName: def.displayName,
    description: def.description,
    parameters: def.parameters.map((p) => parameterView(p, now)),
    queries: def.queries.map((q) => ({ keyName: q.keyName, module: q.module, params: [...q.params] })),
    outputs: def.outputs.map(outputView),
    permissions: permissionsView(def.permissions),
  };
}
