import { and, asc, eq, inArray, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { campuses, groupServiceTimes, serviceTimes, services } from '../db/schema';
import type { LinkedGroupData, PlaceRow } from '../schemas';

// Campuses, services, service times and their group links: small tables, read with their names joined.

type Ref = { id: string; name: string };

/** "Campus - Service - Time", leaving out a part that is missing. */
export function longName(...parts: Array<string | null | undefined>): string {
  return parts.filter((p): p is string => !!p).join(' - ');
}

const liveCampus = (churchId: string) => and(eq(campuses.id, services.campusId), eq(campuses.churchId, churchId), eq(campuses.removed, false));

/**
 * Names of the church's campuses, by name: every live one, or the ones `ids` names, removed ones included (a
 * record that still points at a removed campus shows its name, as reports do). Another church's ids are left out.
 */
export async function campusNames(db: DbOrTx, churchId: string, ids?: string[]): Promise<Ref[]> {
  if (ids && !ids.length) return [];
  return db
    .select({ id: campuses.id, name: campuses.name })
    .from(campuses)
    .where(and(eq(campuses.churchId, churchId), ids ? inArray(campuses.id, ids) : eq(campuses.removed, false)))
    .orderBy(asc(campuses.name), asc(campuses.id));
}

/** Services of the church with their campus (`null` when the campus is unset or removed). */
export async function listServices(db: DbOrTx, churchId: string, opts: { campusId?: string; id?: string } = {}) {
  const conditions: SQL[] = [eq(services.churchId, churchId), eq(services.removed, false)];
  if (opts.campusId) conditions.push(eq(services.campusId, opts.campusId));
  if (opts.id) conditions.push(eq(services.id, opts.id));
  const rows = await db
    .select({ id: services.id, churchId: services.churchId, campusId: services.campusId, name: services.name, campusName: campuses.name })
    .from(services)
    .leftJoin(campuses, liveCampus(churchId))
    .where(and(...conditions))
    .orderBy(asc(campuses.name), asc(services.name));
  return rows.map(({ campusName, ...s }) => ({ ...s, campus: s.campusId && campusName !== null ? { id: s.campusId, name: campusName } : null }));
}

/** Service times with their "Campus - Service - Time" name; filters combine. */
export async function listServiceTimes(db: DbOrTx, churchId: string, opts: { serviceId?: string; campusId?: string; ids?: string[] } = {}) {
  const conditions: SQL[] = [eq(serviceTimes.churchId, churchId), eq(serviceTimes.removed, false)];
  if (opts.serviceId) conditions.push(eq(serviceTimes.serviceId, opts.serviceId));
  if (opts.campusId) conditions.push(eq(services.campusId, opts.campusId));
  if (opts.ids && !opts.ids.length) return [];
  if (opts.ids) conditions.push(inArray(serviceTimes.id, opts.ids));
  const rows = await db
    .select({ id: serviceTimes.id, serviceId: serviceTimes.serviceId, name: serviceTimes.name, serviceName: services.name, campusName: campuses.name })
    .from(serviceTimes)
    .innerJoin(services, and(eq(services.id, serviceTimes.serviceId), eq(services.churchId, churchId), eq(services.removed, false)))
    .leftJoin(campuses, liveCampus(churchId))
    .where(and(...conditions))
    .orderBy(asc(campuses.name), asc(services.name), asc(serviceTimes.name));
  return rows.map((r) => ({ id: r.id, serviceId: r.serviceId, name: r.name, longName: longName(r.campusName, r.serviceName, r.name) }));
}

/** The linked group ids of each service time. */
export async function groupsByServiceTime(db: DbOrTx, churchId: string, serviceTimeIds: string[]): Promise<Map<string, Array<{ id: string }>>> {
  const out = new Map<string, Array<{ id: string }>>();
  if (!serviceTimeIds.length) return out;
  const rows = await db
    .select({ serviceTimeId: groupServiceTimes.serviceTimeId, groupId: groupServiceTimes.groupId })
    .from(groupServiceTimes)
    .where(and(eq(groupServiceTimes.churchId, churchId), inArray(groupServiceTimes.serviceTimeId, serviceTimeIds)))
    .orderBy(asc(groupServiceTimes.createdAt));
  for (const r of rows) (out.get(r.serviceTimeId) ?? out.set(r.serviceTimeId, []).get(r.serviceTimeId)!).push({ id: r.groupId });
  return out;
}

/** Group links, with the service time's long name (for `?groupId=`). */
export async function listGroupServiceTimes(db: DbOrTx, churchId: string, groupId?: string) {
  const conditions: SQL[] = [eq(groupServiceTimes.churchId, churchId)];
  if (groupId) conditions.push(eq(groupServiceTimes.groupId, groupId));
  const links = await db.select().from(groupServiceTimes).where(and(...conditions)).orderBy(asc(groupServiceTimes.createdAt));
  if (!groupId) return links;
  const times = new Map((await listServiceTimes(db, churchId, { ids: [...new Set(links.map((l) => l.serviceTimeId))] })).map((t) => [t.id, t]));
  // A link to a removed service time stays stored (history) but is no longer offered.
  return links.flatMap((l) => {
    const t = times.get(l.serviceTimeId);
    return t ? [{ ...l, serviceTime: { id: t.id, name: t.longName, serviceId: t.serviceId } }] : [];
  });
}

/**
 * The church's campus → service → service time tree, as the public route answers it. Services without a campus
 * hang under an "Unassigned" campus with an empty id, so none is lost from the tree.
 */
export async function placeTree(db: DbOrTx, churchId: string) {
  const [campusRows, serviceRows, timeRows] = await Promise.all([
    db.select({ id: campuses.id, name: campuses.name }).from(campuses).where(and(eq(campuses.churchId, churchId), eq(campuses.removed, false))).orderBy(asc(campuses.name)),
    listServices(db, churchId),
    liveTimes(db, churchId),
  ]);
  const timesOf = byService(timeRows);
  const tree = campusRows.map((c) => ({ ...c, services: [] as Array<Ref & { serviceTimes: Ref[] }> }));
  const byId = new Map(tree.map((c) => [c.id, c]));
  let unassigned: (typeof tree)[number] | undefined;
  for (const s of serviceRows) {
    let campus = s.campus ? byId.get(s.campus.id) : undefined;
    if (!campus) campus = unassigned ??= { id: '', name: 'Unassigned', services: [] };
    campus.services.push({ id: s.id, name: s.name, serviceTimes: (timesOf.get(s.id) ?? []).map(({ id, name }) => ({ id, name })) });
  }
  return unassigned ? [...tree, unassigned] : tree;
}

/**
 * The place tree as rows, as the apps read `/attendancerecords/tree` (B1Admin's attendance setup and page): one row
 * per live service time, `{campus, service, serviceTime}` (with the time's linked groups when `fillGroups` turns
 * their ids into group data, see `groupFiller`), one row without `serviceTime` for a service that has no time yet,
 * and one row with only `campus` for a live campus without a live service (the setup screen lists a campus, and
 * offers "Add Service" under it, only when a row names it; it tests `service` and `serviceTime` for absence, so
 * they are left out rather than null). `campus` is null for a service without a live campus; those rows come last.
 * Ordered by campus, service and time names.
 */
export async function placeRows(db: DbOrTx, churchId: string, fillGroups: (links: Array<{ id: string }>) => LinkedGroupData[]): Promise<PlaceRow[]> {
  const [campusRows, serviceRows, timeRows] = await Promise.all([campusNames(db, churchId), listServices(db, churchId), liveTimes(db, churchId)]);
  const groups = await groupsByServiceTime(db, churchId, timeRows.map((t) => t.id));
  const timesOf = byService(timeRows);
  const servicesOf = new Map<string | null, typeof serviceRows>();
  for (const s of serviceRows) {
    const key = s.campus?.id ?? null;
    (servicesOf.get(key) ?? servicesOf.set(key, []).get(key)!).push(s);
  }
  const serviceRowsOf = (s: (typeof serviceRows)[number]): PlaceRow[] => {
    const head = { campus: s.campus, service: { id: s.id, name: s.name, campusId: s.campusId } };
    const times = timesOf.get(s.id) ?? [];
    if (!times.length) return [head];
    return times.map((t) => ({ ...head, serviceTime: { ...t, groups: fillGroups(groups.get(t.id) ?? []) } }));
  };
  return [
    ...campusRows.flatMap((c) => {
      const list = servicesOf.get(c.id);
      return list ? list.flatMap(serviceRowsOf) : [{ campus: c } satisfies PlaceRow];
    }),
    ...(servicesOf.get(null) ?? []).flatMap(serviceRowsOf),
  ];
}

/** The church's live service times, by name. */
function liveTimes(db: DbOrTx, churchId: string) {
  return db
    .select({ id: serviceTimes.id, name: serviceTimes.name, serviceId: serviceTimes.serviceId })
    .from(serviceTimes)
    .where(and(eq(serviceTimes.churchId, churchId), eq(serviceTimes.removed, false)))
    .orderBy(asc(serviceTimes.name));
}

function byService<T extends { serviceId: string }>(times: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of times) (out.get(t.serviceId) ?? out.set(t.serviceId, []).get(t.serviceId)!).push(t);
  return out;
}
