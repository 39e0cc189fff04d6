import path from 'node:path';
import { sql } from 'drizzle-orm';
import { fakeInternal, makeChurch as baseMakeChurch, personFacts, useModule, type TokenOptions } from '@church/common/testing';
import { HttpError, rowsOf, type Db, type PersonFacts } from '@church/common';
import { buildApp } from '../src/app';

export const MIGRATIONS = path.join(__dirname, '..', 'drizzle');

/** What a test file adds to doing's usual fakes: a provider's loopback server, say, with the config that points at it. */
type Fakes<X extends object> = () => Promise<X & { config?: Record<string, string>; close?: () => Promise<void> }>;

export interface DoingOptions<X extends object> {
  config?: Record<string, string>;
  /** membership's fake refuses every call made while a session of the test database is inside a transaction (`watch`) */
  watchTransactions?: boolean;
  fakes?: Fakes<X>;
}

/**
 * The one lifecycle of doing's tests: the app on a fresh database before the file's tests, closed after, with
 * membership faked (`t.membership`, by its contracts) and whatever the file adds (`fakes`, read through `t`).
 */
export function useDoing<X extends object = object>(opts: DoingOptions<X> = {}) {
  const t = useModule({
    module: 'doing',
    migrations: MIGRATIONS,
    build: buildApp,
    config: opts.config,
    fakes: async () => {
      const membership = fakeMembership();
      if (opts.watchTransactions) membership.watch(() => t.deps.db as Db);
      const added = opts.fakes ? await opts.fakes() : undefined;
      return { ...(added as X), membership, config: added?.config, overrides: { internal: membership.internal }, close: added?.close };
    },
  });
  return t;
}

/**
 * A church for one test whose `token()` is a coordinator's (Plans.Edit) unless other permissions are named:
 * `token([])` is a member without permissions, `tokenOf(personId)` another member of the church.
 */
export function makeChurch() {
  const church = baseMakeChurch();
  return { ...church, token: (permissions: TokenOptions['permissions'] = ['Plans.Edit'], extra: Partial<TokenOptions> = {}) => church.token(permissions, extra) };
}

/** A person as membership's people facts answer them (Pat Doe unless told otherwise). */
export const person = (facts: Partial<PersonFacts> & { id?: string } = {}): PersonFacts => personFacts({ firstName: 'Pat', lastName: 'Doe', displayName: 'Pat Doe', ...facts });

/**
 * Membership as the doing module sees it (`useDoing` starts one per test file): people facts per church, group members, the church's groups, updates
 * recorded. `watch(db)` makes every call fail while one of the database's sessions is inside a transaction (on
 * PostgreSQL: `TEST_DATABASE_URL`): doing never calls another module with a transaction open.
 */
function fakeMembership() {
  const people = new Map<string, PersonFacts[]>();
  const groups = new Map<string, Array<{ personId: string; displayName: string; leader: boolean }>>();
  const churchGroups = new Map<string, Set<string>>();
  const updates: Array<{ churchId: string; personId: string; changes: Record<string, unknown> }> = [];
  const calledInTransaction: string[] = [];
  let down = false;
  let db: (() => Db) | undefined;
  const guard = async (what = 'membership') => {
    if (down) throw new HttpError(502, [{ msg: 'membership answered 503' }]);
    if (!db || !process.env.TEST_DATABASE_URL) return;
    const open = rowsOf<{ n: number }>(
      await db().execute(sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state like 'idle in transaction%'`),
    )[0]!.n;
    if (open) {
      calledInTransaction.push(what);
      throw new HttpError(500, [{ msg: `${what} was called inside an open transaction` }]);
    }
  };
  const internal = fakeInternal({
    'POST /membership/internal/people/facts': async (body: { churchId: string; ids?: string[] }) => {
      await guard('people/facts');
      const all = people.get(body.churchId) ?? [];
      return body.ids ? all.filter((p) => body.ids!.includes(p.id)) : all;
    },
    'POST /membership/internal/groups/members': async (body: { churchId: string; groupId: string }) => {
      await guard('groups/members');
      return (groups.get(`${body.churchId}/${body.groupId}`) ?? []).map((m) => ({ ...m, firstName: null, lastName: null, photo: null }));
    },
    'POST /membership/internal/people/basic': async (body: { churchId: string; ids: string[] }) => {
      await guard('people/basic');
      return (people.get(body.churchId) ?? []).filter((p) => body.ids.includes(p.id)).map((p) => ({ id: p.id, displayName: p.displayName, firstName: p.firstName, lastName: p.lastName, photo: null }));
    },
    'POST /membership/internal/people/update': async (body: { churchId: string; personId: string; changes: Record<string, unknown> }) => {
      await guard('people/update');
      updates.push(body);
      return { id: body.personId };
    },
    // the church's groups: those added, those with members, and those its people belong to
    'POST /membership/internal/groups/list': async (body: { churchId: string }) => {
      await guard('groups/list');
      const ids = new Set(churchGroups.get(body.churchId) ?? []);
      for (const key of groups.keys()) if (key.startsWith(`${body.churchId}/`)) ids.add(key.slice(body.churchId.length + 1));
      for (const p of people.get(body.churchId) ?? []) for (const g of p.groupIds) ids.add(g);
      return [...ids].map((id) => ({ id, name: `Group ${id.slice(0, 8)}` }));
    },
  });
  return {
    internal,
    updates,
    calledInTransaction,
    setDown: (value: boolean) => (down = value),
    /** refuses calls made while a session of this database is inside a transaction */
    watch: (getDb: () => Db) => (db = getDb),
    /** groups of the church (ministries, teams) */
    addGroups: (churchId: string, ...ids: string[]) => churchGroups.set(churchId, new Set([...(churchGroups.get(churchId) ?? []), ...ids])),
    /** adds people to the church (a person added again replaces their earlier facts) */
    addPeople: (churchId: string, list: PersonFacts[]) => people.set(churchId, [...(people.get(churchId) ?? []).filter((p) => !list.some((q) => q.id === p.id)), ...list]),
    addMember: (churchId: string, groupId: string, personId: string, displayName: string, leader = false) =>
      groups.set(`${churchId}/${groupId}`, [...(groups.get(`${churchId}/${groupId}`) ?? []), { personId, displayName, leader }]),
  };
}
