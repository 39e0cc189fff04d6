import { randomUUID } from 'node:crypto';
import { hasPermission } from '@church/auth';
import { badRequest, conflict, notFound, notifyPeople, reportChanges, unauthorized, type Actor, type Tx } from '@church/common';
import type { MembershipDeps } from '../deps';
import { findGroup, findMembership } from '../repos/groups';
import { decideJoinRequest, findJoinRequest, insertJoinRequest, leadersOf, pendingRequest, type JoinRequestRow } from '../repos/join-requests';
import { saveMembers } from './group-members';

/**
 * Requests to join a group whose join policy is `request` (B1App's "Request to join", B1Admin's pending requests):
 * a person asks, the group's leaders are told, a leader or staff member approves (the person becomes a member) or
 * declines (with a reason the person is told), and the person may withdraw a pending request.
 */

type Deps = Pick<MembershipDeps, 'db' | 'module' | 'queue'>;
export const EDIT_MEMBERS = 'GroupMembers.Edit';

/** Staff with Group Members.Edit, or a leader of the group (the token's led groups). */
export const mayDecide = (actor: Actor, groupId: string) => hasPermission(actor, EDIT_MEMBERS) || actor.leaderGroupIds.includes(groupId);

/** The caller asks to join a group; its leaders are told. Asking twice answers the request already pending. Its id. */
export async function askToJoin(deps: Deps, actor: Actor, groupId: string, message: string | null): Promise<string> {
  const { churchId, personId } = actor;
  if (!personId) throw badRequest('groupId', 'Your account has no person in this church yet: open the church first');
  const group = await findGroup(deps.db, churchId, groupId);
  if (!group || group.archived) throw notFound('Group');
  if (group.joinPolicy !== 'request') throw badRequest('groupId', group.joinPolicy === 'open' ? 'This group is open: join it directly' : 'This group does not take requests to join');
  if (await findMembership(deps.db, churchId, group.id, personId)) throw conflict('You are already a member of this group');
  return deps.db.transaction(async (tx) => {
    const saved = await insertJoinRequest(tx, { id: randomUUID(), churchId, groupId: group.id, personId, message });
    // Asking twice answers the request already pending.
    if (!saved) return (await pendingRequest(tx, churchId, group.id, personId))!.id;
    await reportChanges(deps, [{ churchId, entityType: 'groupJoinRequest', entityId: saved.id, action: 'created', event: 'group.member.requested', after: saved, data: saved }], { req: actor, tx });
    const leaders = (await leadersOf(tx, churchId, group.id)).filter((p) => p !== personId);
    if (leaders.length) {
      await deps.queue.enqueue(
        notifyPeople,
        { churchId, personIds: leaders, message: `Someone asked to join ${group.name}`, contentType: 'groupJoinRequest', contentId: saved.id, link: `/groups/${group.id}`, triggeredByPersonId: personId },
        { tx },
      );
    }
    return saved.id;
  });
}

/** A pending request the caller may decide, locked in `tx` so two leaders cannot decide it twice. */
async function decidable(tx: Tx, actor: Actor, id: string): Promise<JoinRequestRow> {
  const request = await findJoinRequest(tx, actor.churchId, id);
  if (!request) throw notFound('Join request');
  if (!mayDecide(actor, request.groupId)) throw unauthorized(`Missing permission: ${EDIT_MEMBERS} or leading the group`);
  if (request.status !== 'pending') throw badRequest('status', `This request is already ${request.status}`);
  return request;
}

/** Approves a pending request: the person joins the group and is told. */
export async function approveJoinRequest(deps: Deps, actor: Actor, id: string): Promise<void> {
  const { churchId } = actor;
  await deps.db.transaction(async (tx) => {
    const request = await decidable(tx, actor, id);
    const group = await findGroup(tx, churchId, request.groupId);
    if (!group) throw notFound('Group');
    await saveMembers(tx, churchId, [{ groupId: request.groupId, personId: request.personId }], { deps, actor });
    const decided = await decideJoinRequest(tx, churchId, request.id, { status: 'approved', decidedBy: actor.personId, decidedDate: new Date() });
    await reportChanges(deps, [{ churchId, entityType: 'groupJoinRequest', entityId: request.id, action: 'approved', before: request, after: decided }], { req: actor, tx });
    await deps.queue.enqueue(
      notifyPeople,
      { churchId, personIds: [request.personId], message: `Your request to join ${group.name} was approved`, contentType: 'groupJoinRequest', contentId: request.id, link: `/mobile/groups/${group.id}`, ...(actor.personId ? { triggeredByPersonId: actor.personId } : {}) },
      { tx },
    );
  });
}

/** Declines a pending request; the person is told, with the reason when one is given. */
export async function declineJoinRequest(deps: Deps, actor: Actor, id: string, reason: string | null): Promise<void> {
  const { churchId } = actor;
  await deps.db.transaction(async (tx) => {
    const request = await decidable(tx, actor, id);
    const group = await findGroup(tx, churchId, request.groupId);
    const decided = await decideJoinRequest(tx, churchId, request.id, { status: 'declined', decidedBy: actor.personId, decidedDate: new Date(), declineReason: reason });
    await reportChanges(deps, [{ churchId, entityType: 'groupJoinRequest', entityId: request.id, action: 'declined', before: request, after: decided }], { req: actor, tx });
    const message = `Your request to join ${group?.name ?? 'the group'} was declined${reason ? `: ${reason}` : ''}`;
    await deps.queue.enqueue(
      notifyPeople,
      { churchId, personIds: [request.personId], message: message.slice(0, 2000), contentType: 'groupJoinRequest', contentId: request.id, ...(actor.personId ? { triggeredByPersonId: actor.personId } : {}) },
      { tx },
    );
  });
}

/** The person withdraws their own request (staff may too); a decided request stays as it was. */
export async function withdrawJoinRequest(deps: Deps, actor: Actor, id: string): Promise<void> {
  const { churchId } = actor;
  await deps.db.transaction(async (tx) => {
    const request = await findJoinRequest(tx, churchId, id);
    const own = request && request.personId === actor.personId;
    if (!request || (!own && !hasPermission(actor, EDIT_MEMBERS))) throw notFound('Join request');
    if (request.status !== 'pending') return;
    const after = await decideJoinRequest(tx, churchId, request.id, { status: 'cancelled', decidedBy: actor.personId, decidedDate: new Date() });
    await reportChanges(deps, [{ churchId, entityType: 'groupJoinRequest', entityId: request.id, action: 'cancelled', before: request, after }], { req: actor, tx });
  });
}
