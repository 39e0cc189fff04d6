import type { FastifyInstance } from 'fastify';
import { anyUser, requires } from '@church/auth';
import { Empty, IdParams, unauthorized, actorOf, type ZodTypeProvider } from '@church/common';
import { EDIT_MEMBERS, approveJoinRequest, askToJoin, declineJoinRequest, mayDecide, withdrawJoinRequest } from '../domain/join-requests';
import { byId, joinRequestsWhere, ofPerson, pendingOf, type JoinRequestWithNames } from '../repos/join-requests';
import { DeclineBody, GroupParams, JoinRequest, JoinRequestCreate, JoinRequestList } from '../schemas/join-requests';

const BASE = '/membership/groupjoinrequests';

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

/**
 * Requests to join a group whose join policy is `request` (B1App's "Request to join", B1Admin's pending requests):
 * a person asks, the group's leaders are told, a leader or staff member approves (the person becomes a member) or
 * declines (with a reason the person is told), and the person may withdraw a pending request.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const one = async (churchId: string, id: string, withContact = false) => toRequest((await joinRequestsWhere(app.db, churchId, byId(id)))[0]!, withContact);

  app.post(BASE, { config: { access: anyUser }, schema: { summary: 'Ask to join a group', body: JoinRequestCreate, response: { 200: JoinRequest } } }, async (req) =>
    one(req.auth.churchId, await askToJoin(app.deps, actorOf(req), req.body.groupId, req.body.message || null)),
  );

  app.get(`${BASE}/my`, { config: { access: anyUser }, schema: { summary: 'The caller’s requests to join groups', response: { 200: JoinRequestList } } }, async (req) =>
    req.auth.personId ? (await joinRequestsWhere(app.db, req.auth.churchId, ofPerson(req.auth.personId))).map((r) => toRequest(r)) : [],
  );

  app.get(`${BASE}/pending`, { config: { access: requires('GroupMembers.Edit') }, schema: { summary: 'Every pending request of the church', response: { 200: JoinRequestList } } }, async (req) =>
    (await joinRequestsWhere(app.db, req.auth.churchId, pendingOf())).map((r) => toRequest(r, true)),
  );

  app.get(`${BASE}/group/:groupId`, { config: { access: anyUser }, schema: { summary: 'A group’s pending requests', params: GroupParams, response: { 200: JoinRequestList } } }, async (req) => {
    if (!mayDecide(actorOf(req), req.params.groupId)) throw unauthorized(`Missing permission: ${EDIT_MEMBERS} or leading the group`);
    return (await joinRequestsWhere(app.db, req.auth.churchId, pendingOf(req.params.groupId))).map((r) => toRequest(r, true));
  });

  app.post(`${BASE}/:id/approve`, { config: { access: anyUser }, schema: { summary: 'Approve a request: the person joins the group', params: IdParams, response: { 200: JoinRequest } } }, async (req) => {
    await approveJoinRequest(app.deps, actorOf(req), req.params.id);
    return one(req.auth.churchId, req.params.id, true);
  });

  app.post(`${BASE}/:id/decline`, { config: { access: anyUser }, schema: { summary: 'Decline a request', params: IdParams, body: DeclineBody, response: { 200: JoinRequest } } }, async (req) => {
    await declineJoinRequest(app.deps, actorOf(req), req.params.id, req.body?.declineReason || null);
    return one(req.auth.churchId, req.params.id, true);
  });

  // The person withdraws their own request (staff may too); a decided request stays as it was.
  app.delete(`${BASE}/:id`, { config: { access: anyUser }, schema: { summary: 'Withdraw a pending request', params: IdParams, response: { 200: Empty } } }, async (req) => {
    await withdrawJoinRequest(app.deps, actorOf(req), req.params.id);
    return {};
  });
}
