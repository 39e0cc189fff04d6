import type { FastifyInstance, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { anyUser, hasPermission, requires } from '@church/auth';
import { Empty, IdParams, badRequest, conflict, notFound, notifyPeople, reportChanges, unauthorized, actorOf, type Tx, type ZodTypeProvider } from '@church/common';
import { saveMembers } from '../domain/group-members';
import { findGroup, findMembership } from '../repos/groups';
import { byId, decideJoinRequest, findJoinRequest, insertJoinRequest, joinRequestsWhere, leadersOf, ofPerson, pendingOf, pendingRequest, type JoinRequestRow, type JoinRequestWithNames } from '../repos/join-requests';
import { DeclineBody, GroupParams, JoinRequest, JoinRequestCreate, JoinRequestList } from '../schemas/join-requests';

const BASE = '/membership/groupjoinrequests';
const EDIT_MEMBERS = 'GroupMembers.Edit';

const toRequest = (r: JoinRequestWithNames, withContact = false) => ({
  ...r.request,
  person: {
    id: r.request.personId,
    name: { display: r.displayName, first: r.firstName, last: r.lastName },
    photo: r.photo,
    ...(withContact ? { contactInfo: { email: r.email } } : {}),
  },
  group: { id: r.request.groupId, name: r.groupName },
});

/** Staff with Group Members.Edit, or a leader of the group (the token's led groups). */
const mayDecide = (req: FastifyRequest, groupId: string) => hasPermission(req.auth, EDIT_MEMBERS) || req.auth.leaderGroupIds.includes(groupId);

/**
 * Requests to join a group whose join policy is `request` (B1App's "Request to join", B1Admin's pending requests):
 * a person asks, the group's leaders are told, a leader or staff member approves (the person becomes a member) or
 * declines (with a reason the person is told), and the person may withdraw a pending request.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const one = async (churchId: string, id: string, withContact = false) => toRequest((await joinRequestsWhere(app.db, churchId, byId(id)))[0]!, withContact);

  app.post(BASE, { config: { access: anyUser }, schema: { summary: 'Ask to join a group', body: JoinRequestCreate, response: { 200: JoinRequest } } }, async (req) => {
    const { churchId, personId } = req.auth;
    if (!personId) throw badRequest('groupId', 'Your account has no person in this church yet: open the church first');
    const group = await findGroup(app.db, churchId, req.body.groupId);
    if (!group || group.archived) throw notFound('Group');
    if (group.joinPolicy !== 'request') throw badRequest('groupId', group.joinPolicy === 'open' ? 'This group is open: join it directly' : 'This group does not take requests to join');
    if (await findMembership(app.db, churchId, group.id, personId)) throw conflict('You are already a member of this group');
    const id = await app.db.transaction(async (tx) => {
      const saved = await insertJoinRequest(tx, { id: randomUUID(), churchId, groupId: group.id, personId, message: req.body.message || null });
      // Asking twice answers the request already pending.
      if (!saved) return (await pendingRequest(tx, churchId, group.id, personId))!.id;
      await reportChanges(app.deps, [{ churchId, entityType: 'groupJoinRequest', entityId: saved.id, action: 'created', event: 'group.member.requested', after: saved, data: saved }], { req, tx });
      const leaders = (await leadersOf(tx, churchId, group.id)).filter((p) => p !== personId);
      if (leaders.length) {
        await app.deps.queue.enqueue(
          notifyPeople,
          { churchId, personIds: leaders, message: `Someone asked to join ${group.name}`, contentType: 'groupJoinRequest', contentId: saved.id, link: `/groups/${group.id}`, triggeredByPersonId: personId },
          { tx },
        );
      }
      return saved.id;
    });
    return one(churchId, id);
  });

  app.get(`${BASE}/my`, { config: { access: anyUser }, schema: { summary: 'The caller’s requests to join groups', response: { 200: JoinRequestList } } }, async (req) =>
    req.auth.personId ? (await joinRequestsWhere(app.db, req.auth.churchId, ofPerson(req.auth.personId))).map((r) => toRequest(r)) : [],
  );

  app.get(`${BASE}/pending`, { config: { access: requires('GroupMembers.Edit') }, schema: { summary: 'Every pending request of the church', response: { 200: JoinRequestList } } }, async (req) =>
    (await joinRequestsWhere(app.db, req.auth.churchId, pendingOf())).map((r) => toRequest(r, true)),
  );

  app.get(`${BASE}/group/:groupId`, { config: { access: anyUser }, schema: { summary: 'A group’s pending requests', params: GroupParams, response: { 200: JoinRequestList } } }, async (req) => {
    if (!mayDecide(req, req.params.groupId)) throw unauthorized(`Missing permission: ${EDIT_MEMBERS} or leading the group`);
    return (await joinRequestsWhere(app.db, req.auth.churchId, pendingOf(req.params.groupId))).map((r) => toRequest(r, true));
  });

  /** A pending request the caller may decide, locked in `tx` so two leaders cannot decide it twice. */
  const decidable = async (tx: Tx, req: FastifyRequest, id: string): Promise<JoinRequestRow> => {
    const request = await findJoinRequest(tx, req.auth.churchId, id);
    if (!request) throw notFound('Join request');
    if (!mayDecide(req, request.groupId)) throw unauthorized(`Missing permission: ${EDIT_MEMBERS} or leading the group`);
    if (request.status !== 'pending') throw badRequest('status', `This request is already ${request.status}`);
    return request;
  };

  app.post(`${BASE}/:id/approve`, { config: { access: anyUser }, schema: { summary: 'Approve a request: the person joins the group', params: IdParams, response: { 200: JoinRequest } } }, async (req) => {
    const { churchId } = req.auth;
    await app.db.transaction(async (tx) => {
      const request = await decidable(tx, req, req.params.id);
      const group = await findGroup(tx, churchId, request.groupId);
      if (!group) throw notFound('Group');
      await saveMembers(tx, churchId, [{ groupId: request.groupId, personId: request.personId }], { deps: app.deps, actor: actorOf(req) });
      const decided = await decideJoinRequest(tx, churchId, request.id, { status: 'approved', decidedBy: req.auth.personId, decidedDate: new Date() });
      await reportChanges(app.deps, [{ churchId, entityType: 'groupJoinRequest', entityId: request.id, action: 'approved', before: request, after: decided }], { req, tx });
      await app.deps.queue.enqueue(
        notifyPeople,
        { churchId, personIds: [request.personId], message: `Your request to join ${group.name} was approved`, contentType: 'groupJoinRequest', contentId: request.id, link: `/mobile/groups/${group.id}`, ...(req.auth.personId ? { triggeredByPersonId: req.auth.personId } : {}) },
        { tx },
      );
    });
    return one(churchId, req.params.id, true);
  });

  app.post(`${BASE}/:id/decline`, { config: { access: anyUser }, schema: { summary: 'Decline a request', params: IdParams, body: DeclineBody, response: { 200: JoinRequest } } }, async (req) => {
    const { churchId } = req.auth;
    await app.db.transaction(async (tx) => {
      const request = await decidable(tx, req, req.params.id);
      const group = await findGroup(tx, churchId, request.groupId);
      const reason = req.body?.declineReason || null;
      const decided = await decideJoinRequest(tx, churchId, request.id, { status: 'declined', decidedBy: req.auth.personId, decidedDate: new Date(), declineReason: reason });
      await reportChanges(app.deps, [{ churchId, entityType: 'groupJoinRequest', entityId: request.id, action: 'declined', before: request, after: decided }], { req, tx });
      const message = `Your request to join ${group?.name ?? 'the group'} was declined${reason ? `: ${reason}` : ''}`;
      await app.deps.queue.enqueue(
        notifyPeople,
        { churchId, personIds: [request.personId], message: message.slice(0, 2000), contentType: 'groupJoinRequest', contentId: request.id, ...(req.auth.personId ? { triggeredByPersonId: req.auth.personId } : {}) },
        { tx },
      );
    });
    return one(churchId, req.params.id, true);
  });

  // The person withdraws their own request (staff may too); a decided request stays as it was.
  app.delete(`${BASE}/:id`, { config: { access: anyUser }, schema: { summary: 'Withdraw a pending request', params: IdParams, response: { 200: Empty } } }, async (req) => {
    const { churchId } = req.auth;
    await app.db.transaction(async (tx) => {
      const request = await findJoinRequest(tx, churchId, req.params.id);
      const own = request && request.personId === req.auth.personId;
      if (!request || (!own && !hasPermission(req.auth, EDIT_MEMBERS))) throw notFound('Join request');
      if (request.status !== 'pending') return;
      const after = await decideJoinRequest(tx, churchId, request.id, { status: 'cancelled', decidedBy: req.auth.personId, decidedDate: new Date() });
      await reportChanges(app.deps, [{ churchId, entityType: 'groupJoinRequest', entityId: request.id, action: 'cancelled', before: request, after }], { req, tx });
    });
    return {};
  });
}
