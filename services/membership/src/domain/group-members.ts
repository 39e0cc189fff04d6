import { notFound, saveRows, type Db, type Tx, type ChangeInput } from '@church/common';
import { groupMembers } from '../db/schema';
import { recordHistory } from '../repos/group-health';
import { existingPeople, findMembership, listGroups, type GroupMemberRow, type MemberWithPerson } from '../repos/groups';
import { report as reportTo, type Reporter } from './report';

export interface MemberInput {
  id?: string;
  groupId?: string;
  personId?: string;
  leader?: boolean;
  joinDate?: Date;
}

/**
 * Batch save of memberships in one transaction. Group and person must both be live records of the church
 * (else 404, nothing written). Adding a person who is already in the group updates that membership instead
 * of failing on the unique (group, person) pair, so "add member" is safe to repeat. A new membership is a join in
 * the groups' history (the health screens).
 */
export function saveMembers(db: Db | Tx, churchId: string, items: MemberInput[], report?: Reporter): Promise<GroupMemberRow[]> {
  const run = async (tx: Tx) => {
    const groupIds = [...new Set(items.map((i) => i.groupId).filter((x): x is string => !!x))];
    const personIds = [...new Set(items.map((i) => i.personId).filter((x): x is string => !!x))];
    const liveGroups = new Set((await listGroups(tx, churchId, { ids: groupIds, includeArchived: true })).map((g) => g.id));
    const livePeople = await existingPeople(tx, churchId, personIds);
    if (groupIds.some((id) => !liveGroups.has(id))) throw notFound('Group');
    if (personIds.some((id) => !livePeople.has(id))) throw notFound('Person');
    const out: GroupMemberRow[] = [];
    const joined: Array<{ groupId: string; personId: string; action: 'joined' }> = [];
    const changes: ChangeInput[] = [];
    for (const item of items) {
      let values: MemberInput = item;
      let before: GroupMemberRow | undefined;
      if (item.id) before = (await findMembership(tx, churchId, undefined, undefined, item.id)) ?? undefined;
      else if (item.groupId && item.personId) {
        before = await findMembership(tx, churchId, item.groupId, item.personId);
        if (before) values = { ...item, id: before.id };
        else joined.push({ groupId: item.groupId, personId: item.personId, action: 'joined' });
      }
      const [row] = (await saveRows(tx, groupMembers, churchId, [values as Record<string, unknown>])) as GroupMemberRow[];
      out.push(row!);
      const data = { id: row!.id, groupId: row!.groupId, personId: row!.personId, leader: row!.leader, joinDate: row!.joinDate };
      changes.push({ churchId, entityType: 'groupMember', entityId: row!.id, action: before ? 'updated' : 'created', event: before ? undefined : 'group.member.added', before, after: row, data });
    }
    await recordHistory(tx, churchId, joined);
    await reportTo(report, tx, changes);
    return out;
  };
  return 'rollback' in db ? run(db) : (db as Db).transaction(run);
}

/** A membership as the API answers it: the person's name and photo, and the email only for viewers. */
export function toMember(r: MemberWithPerson, withContact: boolean) {
  return {
    ...r.member,
    person: {
      id: r.member.personId,
      name: { first: r.firstName, last: r.lastName, display: r.displayName ?? displayNameOf(r) },
      photo: r.photo,
      membershipStatus: r.membershipStatus,
      ...(withContact ? { contactInfo: { email: r.email } } : {}),
    },
  };
}

/** What the public roster and leader list expose, nothing more (spec: personId, displayName, leader, photo). */
export function toPublicMember(r: MemberWithPerson) {
  return { personId: r.member.personId, displayName: r.displayName ?? displayNameOf(r), leader: r.member.leader, photo: r.photo };
}

function displayNameOf(r: { firstName: string | null; lastName: string | null }): string {
  return [r.firstName, r.lastName].filter(Boolean).join(' ');
}
