import { HttpError, notFound, type Db, type InternalClient } from '@church/common';
import { sessionAttendance } from '../repos/sessions';

/** A member of a group, as membership's internal route answers. */
interface GroupMember {
  personId: string;
  displayName?: string | null;
  firstName?: string | null;
  lastName?: string | null;
}
interface PersonBasic {
  id: string;
  displayName?: string | null;
  firstName?: string | null;
  lastName?: string | null;
}

/** A membership call; an unreachable membership is a 502 (a bad gateway), never a 500. */
async function fromMembership<T>(internal: InternalClient, path: string, body: unknown, revalidate = false): Promise<T> {
  try {
    return await internal.post<T>('membership', path, body, { revalidate });
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(502, [{ msg: 'membership is unreachable' }]);
  }
}

/** Names compare as `localeCompare` does (the default locale), through one collator built once. */
const byName = new Intl.Collator().compare;

const nameOf = (p: { displayName?: string | null; firstName?: string | null; lastName?: string | null } | undefined) =>
  p?.displayName || [p?.firstName, p?.lastName].filter(Boolean).join(' ') || '';

/**
 * A session's attendance sheet: every member of the session's group, `present` when they have a visit session
 * and `absent` otherwise (absent rows have empty `id` and `visitId`), plus present people who are not members.
 * Members and names come from membership over signed internal calls. Sorted by name.
 */
export async function sessionDownload(db: Db, internal: InternalClient, churchId: string, sessionId: string) {
  const session = await sessionAttendance(db, churchId, sessionId);
  if (!session) throw notFound('Session');
  const { present } = session;
  // The roster is kept and revalidated: membership answers 304 while the church's people and groups are unchanged.
  const members = await fromMembership<GroupMember[]>(internal, '/membership/internal/groups/members', { churchId, groupId: session.groupId }, true);
  const memberById = new Map(members.map((m) => [m.personId, m]));
  const strangers = [...new Set(present.map((p) => p.personId).filter((id) => !memberById.has(id)))];
  const basics = strangers.length
    ? await fromMembership<PersonBasic[]>(internal, '/membership/internal/people/basic', { churchId, ids: strangers })
    : [];
  const basicById = new Map(basics.map((p) => [p.id, p]));
  const { sessionDate } = session;
  const presentIds = new Set(present.map((p) => p.personId));
  // one object shape for every row (a few hundred of them), built without spreads
  const rows = present.map((p) => ({
    id: p.id,
    personId: p.personId,
    visitId: p.visitId,
    sessionId,
    sessionDate,
    personName: nameOf(memberById.get(p.personId) ?? basicById.get(p.personId)),
    status: 'present' as 'present' | 'absent',
  }));
  for (const m of members) {
    if (!presentIds.has(m.personId)) rows.push({ id: '', personId: m.personId, visitId: '', sessionId, sessionDate, personName: nameOf(m), status: 'absent' });
  }
  return rows.sort((a, b) => byName(a.personName, b.personName) || byName(a.personId, b.personId));
}
