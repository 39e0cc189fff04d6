import { hasPermission } from '@church/auth';
import { HttpError, badRequest, notFound, saveRows, unauthorized, type Actor, type Db, type Tx, type ChangeInput, type RevocationEntry } from '@church/common';
import type { MembershipDeps } from '../deps';
import { groupMembers } from '../db/schema';
import { usersOfPeople } from '../repos/gdpr';
import { recordHistory } from '../repos/group-health';
import { deleteMember, existingPeople, findGroup, findMembership, listGroups, listMembers, memberGroupIds, type GroupMemberRow, type MemberWithPerson } from '../repos/groups';
import { report as reportTo, type Reporter } from './report';
import { announce, revokeTokens } from './revocations';

/**
 * A person's tokens list the groups they lead (`leaderGroupIds`: join requests, content events, messaging reminders
 * read it), so a change of leadership (a leader added, removed, or the flag changed) revokes their tokens in the
 * church, as a change of roles does: the stamps are written in `tx` and added to `revoked`, which whoever commits
 * the transaction announces (`announce`).
 */
async function leadershipChanged(tx: Tx, churchId: string, personIds: string[], revoked: RevocationEntry[]): Promise<void> {
  const users = await usersOfPeople(tx, churchId, [...new Set(personIds)]);
  revoked.push(...(await revokeTokens(tx, users.map((userId) => ({ userId, churchId })))));
}

/** Announces the stamps after the commit of a transaction the domain function ran itself. */
async function announceAfter<T>(report: Reporter | undefined, revoked: RevocationEntry[], done: Promise<T>): Promise<T> {
  const out = await done;
  if (revoked.length && report?.deps.revocations) await report.deps.revocations.publish(revoked);
  return out;
}

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
export function saveMembers(db: Db | Tx, churchId: string, items: MemberInput[], report?: Reporter, revoked: RevocationEntry[] = []): Promise<GroupMemberRow[]> {
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
    const leadership: string[] = [];
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
      if ((before?.leader ?? false) !== row!.leader) leadership.push(row!.personId);
      const data = { id: row!.id, groupId: row!.groupId, personId: row!.personId, leader: row!.leader, joinDate: row!.joinDate };
      changes.push({ churchId, entityType: 'groupMember', entityId: row!.id, action: before ? 'updated' : 'created', event: before ? undefined : 'group.member.added', before, after: row, data });
    }
    await recordHistory(tx, churchId, joined);
    await reportTo(report, tx, changes);
    if (leadership.length) await leadershipChanged(tx, churchId, leadership, revoked);
    return out;
  };
  return 'rollback' in db ? run(db) : announceAfter(report, revoked, (db as Db).transaction(run));
}

/**
 * Takes a membership away (by its id; only the person's own when `personId` is given): a leave in the groups'
 * history and a `group.member.removed`; a leader's tokens are revoked (`revoked`: for the caller to announce after
 * its commit). Answers the row that went, or undefined when there was none.
 */
export async function removeMember(tx: Tx, churchId: string, id: string, report?: Reporter, personId?: string, revoked: RevocationEntry[] = []): Promise<GroupMemberRow | undefined> {
  const removed = await deleteMember(tx, churchId, id, personId);
  if (!removed) return undefined;
  if (removed.leader) await leadershipChanged(tx, churchId, [removed.personId], revoked);
  await recordHistory(tx, churchId, [{ groupId: removed.groupId, personId: removed.personId, action: 'left' }]);
  const data = { id: removed.id, groupId: removed.groupId, personId: removed.personId };
  await reportTo(report, tx, [{ churchId, entityType: 'groupMember', entityId: removed.id, action: 'destroyed', event: 'group.member.removed', before: removed, data }]);
  return removed;
}

/**
 * `membership.groupMembership`: a person added to a group (as "add member" does: a repeat changes nothing) or taken
 * out of it. A group or person that is not a live record of the church is skipped, not retried.
 */
export async function changeMembership(db: Db, reporter: Reporter, job: { churchId: string; groupId: string; personId: string; action: 'add' | 'remove' }): Promise<'added' | 'removed' | 'unchanged' | 'skipped'> {
  const { churchId, groupId, personId } = job;
  const revoked: RevocationEntry[] = [];
  return announceAfter(
    reporter,
    revoked,
    db.transaction(async (tx) => {
      const existing = await findMembership(tx, churchId, groupId, personId);
      if (job.action === 'remove') return existing && (await removeMember(tx, churchId, existing.id, reporter, undefined, revoked)) ? 'removed' : 'unchanged';
      if (existing) return 'unchanged';
      const [group] = await listGroups(tx, churchId, { ids: [groupId], includeArchived: true });
      if (!group || !(await existingPeople(tx, churchId, [personId])).has(personId)) return 'skipped';
      await saveMembers(tx, churchId, [{ groupId, personId }], reporter, revoked);
      return 'added';
    }),
  );
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
    // B1Admin's person page lists a person's memberships by `group.name` and `group.photoUrl`.
    group: { id: r.member.groupId, name: r.groupName, photoUrl: r.groupPhotoUrl },
  };
}

/**
 * A member as anyone may see them: the spec's flat keys and the nested `person` B1App's group page reads
 * (`person.id`, `person.photo`, `person.name.display`). Never contact details.
 */
export function toPublicMember(r: MemberWithPerson) {
  const displayName = r.displayName ?? displayNameOf(r);
  return {
    personId: r.member.personId,
    displayName,
    leader: r.member.leader,
    photo: r.photo,
    person: { id: r.member.personId, name: { display: displayName }, photo: r.photo },
  };
}

function displayNameOf(r: { firstName: string | null; lastName: string | null }): string {
  return [r.firstName, r.lastName].filter(Boolean).join(' ');
}

/**
 * Group members as `GET /groupmembers` lists them: GroupMembers.View holders any (with contact details); anyone else
 * only their own memberships, or the members of groups they are in themselves (else 401).
 */
export async function membersFor(db: Db, actor: Actor, query: { groupId?: string; groupIds?: string[]; personId?: string }) {
  const { churchId, personId: me } = actor;
  const { groupId, groupIds, personId } = query;
  const ids = groupIds ?? (groupId ? [groupId] : undefined);
  const canView = hasPermission(actor, 'GroupMembers.View');
  if (!canView) {
    const ownOnly = !!personId && personId === me && !ids;
    if (!ownOnly) {
      if (!ids?.length || !me) throw unauthorized('Missing permission: GroupMembers.View');
      const mine = await memberGroupIds(db, churchId, me, ids);
      if (!ids.every((id) => mine.has(id))) throw unauthorized('Missing permission: GroupMembers.View');
    }
  }
  const rows = await listMembers(db, churchId, { groupIds: ids, personId });
  return rows.map((r) => toMember(r, canView));
}

/**
 * The caller joins a group on their own, as its join policy allows: `open`, the membership is made (or the existing
 * one answered); `request`, nothing is written and the answer says so (`{redirect: 'request'}`); `closed`, 403.
 */
export async function joinGroup(deps: Pick<MembershipDeps, 'db' | 'module' | 'queue'>, actor: Actor, groupId: string) {
  const { churchId, personId } = actor;
  if (!personId) throw badRequest('groupId', 'Your account has no person in this church yet: open the church first');
  const group = await findGroup(deps.db, churchId, groupId);
  if (!group || group.archived) throw notFound('Group');
  if (group.joinPolicy === 'request') return { redirect: 'request' as const, message: 'This group takes requests to join: its leaders approve them' };
  if (group.joinPolicy !== 'open') throw new HttpError(403, [{ msg: 'This group is closed to new members: its leaders add people' }]);
  const [saved] = await saveMembers(deps.db, churchId, [{ groupId: group.id, personId }], { deps, actor });
  const [row] = await listMembers(deps.db, churchId, { id: saved!.id });
  if (!row) throw notFound('Person');
  return toMember(row, false);
}

/**
 * Ends a membership: GroupMembers.View holders any of the church's, anyone else only their own (B1App's "Leave
 * group"); someone else's (or none) is the same refusal for them. A leader's removal revokes their tokens (they list
 * the groups the person leads), announced after the commit.
 */
export async function endMembership(deps: Pick<MembershipDeps, 'db' | 'module' | 'queue' | 'revocations'>, actor: Actor, id: string): Promise<void> {
  const canView = hasPermission(actor, 'GroupMembers.View');
  if (!canView && !actor.personId) throw unauthorized('Missing permission: GroupMembers.View');
  const revoked: RevocationEntry[] = [];
  await deps.db.transaction(async (tx) => {
    const removed = await removeMember(tx, actor.churchId, id, { deps, actor }, canView ? undefined : actor.personId!, revoked);
    // Someone else's membership (or none) is the same refusal for a caller without the permission.
    if (!removed) throw canView ? notFound('Group member') : unauthorized('Missing permission: GroupMembers.View');
  });
  await announce(deps, revoked);
}
