import { notFound } from '@church/common';
import { groupMembers, peopleBasic } from '../clients/membership';
import type { AttendanceDeps } from '../deps';
import { sessionAttendance } from '../repos/sessions';

/** A member of a group, as membership's internal route answers. */
type GroupMember = { personId: string; displayName: string | null; firstName: string | null; lastName: string | null };

/** Names compare as `localeCompare` does (the default locale), through one collator built once. */
const byName = new Intl.Collator().compare;

const nameOf = (p: { displayName?: string | null; firstName?: string | null; lastName?: string | null } | undefined) =>
  p?.displayName || [p?.firstName, p?.lastName].filter(Boolean).join(' ') || '';

type Row = { id: string; personId: string; visitId: string; sessionId: string; sessionDate: string; personName: string; status: 'present' | 'absent' };
type Named = { personId: string; name: string };

/** The sheet's order: by name, then by person id (a total order, so any two sorts of the same rows agree). */
const bySheetOrder = (a: { personName: string; personId: string }, b: { personName: string; personId: string }) =>
  byName(a.personName, b.personName) || byName(a.personId, b.personId);

/**
 * A roster's members with their names, in sheet order: sorted once per roster, not once per download. The
 * internal client keeps the roster it revalidated, so the same array comes back until membership changes.
 */
const sortedRosters = new WeakMap<GroupMember[], Named[]>();
function inSheetOrder(members: GroupMember[]): Named[] {
  let sorted = sortedRosters.get(members);
  if (!sorted) {
    sorted = members
      .map((m) => ({ personId: m.personId, name: nameOf(m) }))
      .sort((a, b) => bySheetOrder({ personName: a.name, personId: a.personId }, { personName: b.name, personId: b.personId }));
    sortedRosters.set(members, sorted);
  }
  return sorted;
}

/**
 * A session's attendance sheet: every member of the session's group, `present` when they have a visit session
 * and `absent` otherwise (absent rows have empty `id` and `visitId`), plus present people who are not members.
 * Members and names come from membership over signed internal calls. Sorted by name (then person id): the
 * members in their roster's kept order, merged with the few present people who are not members.
 */
export async function sessionDownload(deps: Pick<AttendanceDeps, 'db' | 'internal'>, churchId: string, sessionId: string) {
  const session = await sessionAttendance(deps.db, churchId, sessionId);
  if (!session) throw notFound('Session');
  const { present, sessionDate } = session;
  // The roster is kept and revalidated: membership answers 304 while the church's people and groups are unchanged.
  // (the kept answer is parsed once, so the same array comes back and its sorted roster is reused)
  const members = await groupMembers(deps.internal, churchId, session.groupId);
  const visitsOf = new Map<string, Array<(typeof present)[number]>>();
  for (const p of present) {
    const list = visitsOf.get(p.personId);
    if (list) list.push(p);
    else visitsOf.set(p.personId, [p]);
  }
  // one object shape for every row (a few hundred of them), built without spreads
  const row = (personId: string, personName: string, visit?: (typeof present)[number]): Row => ({
    id: visit?.id ?? '',
    personId,
    visitId: visit?.visitId ?? '',
    sessionId,
    sessionDate,
    personName,
    status: visit ? 'present' : 'absent',
  });
  const memberRows: Row[] = [];
  for (const { personId, name } of inSheetOrder(members)) {
    const visits = visitsOf.get(personId);
    if (!visits) memberRows.push(row(personId, name));
    else for (const visit of visits) memberRows.push(row(personId, name, visit));
    visitsOf.delete(personId);
  }
  if (!visitsOf.size) return memberRows;

  // Present people who are not (or no longer) members: named through membership, then merged in.
  const basics = await peopleBasic(deps.internal, churchId, [...visitsOf.keys()]);
  const basicById = new Map(basics.map((p) => [p.id, p]));
  const strangerRows = [...visitsOf].flatMap(([personId, visits]) => visits.map((visit) => row(personId, nameOf(basicById.get(personId)), visit)));
  strangerRows.sort(bySheetOrder);
  const rows: Row[] = [];
  let m = 0;
  let s = 0;
  while (m < memberRows.length || s < strangerRows.length) {
    const takeMember = s >= strangerRows.length || (m < memberRows.length && bySheetOrder(memberRows[m]!, strangerRows[s]!) <= 0);
    rows.push(takeMember ? memberRows[m++]! : strangerRows[s++]!);
  }
  return rows;
}
