import { HttpError, type Db, type InternalClient } from '@church/common';
import { getSession } from '../repos/sessions';
import { listVisitSessions } from '../repos/visits';

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
async function fromMembership<T>(internal: InternalClient, path: string, body: unknown): Promise<T> {
  try {
    return await internal.post<T>('membership', path, body);
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(502, [{ msg: 'membership is unreachable' }]);
  }
}

const nameOf = (p: { displayName?: string | null; firstName?: string | null; lastName?: string | null } | undefined) =>
  p?.displayName || [p?.firstName, p?.lastName].filter(Boolean).join(' ') || '';

/**
 * A session's attendance sheet: every member of the session's group, `present` when they have a visit session
 * and `absent` otherwise (absent rows have empty `id` and `visitId`), plus present people who are not members.
 * Members and names come from membership over signed internal calls. Sorted by name.
 */
export async function sessionDownload(db: Db, internal: InternalClient, churchId: string, sessionId: string) {
  const session = await getSession(db, churchId, sessionId);
  const [present, members] = await Promise.all([
    listVisitSessions(db, churchId, { sessionId, groupIds: null }),
    fromMembership<GroupMember[]>(internal, '/membership/internal/groups/members', { churchId, groupId: session.groupId }),
  ]);
  const memberById = new Map(members.map((m) => [m.personId, m]));
  const strangers = [...new Set(present.map((p) => p.personId).filter((id) => !memberById.has(id)))];
  const basics = strangers.length
    ? await fromMembership<PersonBasic[]>(internal, '/membership/internal/people/basic', { churchId, ids: strangers })
    : [];
  const basicById = new Map(basics.map((p) => [p.id, p]));
  const base = { sessionId, sessionDate: session.sessionDate };
  const presentIds = new Set(present.map((p) => p.personId));
  const rows = [
    ...present.map((p) => ({
      ...base,
      id: p.id,
      visitId: p.visitId,
      personId: p.personId,
      personName: nameOf(memberById.get(p.personId) ?? basicById.get(p.personId)),
      status: 'present' as const,
    })),
    ...members
      .filter((m) => !presentIds.has(m.personId))
      .map((m) => ({ ...base, id: '', visitId: '', personId: m.personId, personName: nameOf(m), status: 'absent' as const })),
  ];
  return rows.sort((a, b) => a.personName.localeCompare(b.personName) || a.personId.localeCompare(b.personId));
}
