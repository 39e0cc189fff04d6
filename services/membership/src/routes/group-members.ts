import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires, rule } from '@church/auth';
import { Empty, Id, IdParams, batchOf, notFound, actorOf, type ZodTypeProvider } from '@church/common';
import { endMembership, joinGroup, membersFor, saveMembers, toMember, toPublicMember } from '../domain/group-members';
import { findGroup, listMembers } from '../repos/groups';
import { GroupMember, GroupMemberList, PublicMemberList, MemberSave, ListQuery, PublicParams } from '../schemas/group-members';

/**
 * Spec: "GroupMembers.View, or caller is in the group, or queries own personId". The last two depend on the
 * query and on memberships, so the handler decides; any authenticated caller gets that far.
 */
const listAccess = rule('GroupMembers.View, or caller is in the group, or queries own personId', () => true);
/** Removing a membership: GroupMembers.View, or the membership is the caller's own (checked in the handler). */
const ownOrViewer = rule('GroupMembers.View, or own membership', () => true);

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/groupmembers';

  app.get(base, { config: { access: listAccess }, schema: { querystring: ListQuery, response: { 200: GroupMemberList } } }, (req) =>
    membersFor(app.db, actorOf(req), req.query),
  );

  app.get(`${base}/my`, { config: { access: anyUser }, schema: { response: { 200: GroupMemberList } } }, async (req) => {
    if (!req.auth.personId) return [];
    return (await listMembers(app.db, req.auth.churchId, { personId: req.auth.personId })).map((r) => toMember(r, false));
  });

  app.get(
    `${base}/basic/:groupId`,
    { config: { access: anyUser }, schema: { params: z.object({ groupId: Id }), response: { 200: GroupMemberList } } },
    async (req) => {
      if (!(await findGroup(app.db, req.auth.churchId, req.params.groupId))) throw notFound('Group');
      return (await listMembers(app.db, req.auth.churchId, { groupIds: [req.params.groupId] })).map((r) => toMember(r, false));
    },
  );

  app.get(
    `${base}/public/leaders/:churchId/:groupId`,
    { config: { access: 'public' }, schema: { params: PublicParams, response: { 200: PublicMemberList } } },
    async (req) => {
      const group = await findGroup(app.db, req.params.churchId, req.params.groupId);
      // An archived group has no public page.
      if (!group || group.archived) throw notFound('Group');
      return (await listMembers(app.db, req.params.churchId, { groupIds: [group.id], leadersOnly: true })).map(toPublicMember);
    },
  );

  app.get(
    `${base}/public/:churchId/:groupId`,
    { config: { access: 'public' }, schema: { params: PublicParams, response: { 200: PublicMemberList } } },
    async (req) => {
      const group = await findGroup(app.db, req.params.churchId, req.params.groupId);
      // A roster is public only by the group's opt-in; otherwise it is indistinguishable from no group.
      if (!group?.publicRoster || group.archived) throw notFound('Group');
      return (await listMembers(app.db, req.params.churchId, { groupIds: [group.id] })).map(toPublicMember);
    },
  );

  app.get(
    `${base}/:id`,
    { config: { access: requires('GroupMembers.View') }, schema: { params: IdParams, response: { 200: GroupMember } } },
    async (req) => {
      const [row] = await listMembers(app.db, req.auth.churchId, { id: req.params.id });
      if (!row) throw notFound('Group member');
      return toMember(row, true);
    },
  );

  app.post(
    base,
    { config: { access: requires('GroupMembers.Edit') }, schema: { body: batchOf(MemberSave), response: { 200: GroupMemberList } } },
    (req) => saveMembers(app.db, req.auth.churchId, req.body, { deps: app.deps, actor: actorOf(req) }),
  );

  // B1App's group page: the caller joins a group on their own, as the group's join policy allows. `open`: the
  // membership is made (or the existing one answered); `request`: nothing is written and the answer says so
  // (`{redirect: 'request'}`, the app then offers a join request); `closed`: 403, its leaders add people.
  app.post(
    `${base}/self`,
    {
      config: { access: anyUser },
      // One object schema (a union of object schemas cannot serialize the Date of `joinDate`).
      schema: { body: z.object({ groupId: Id }), response: { 200: GroupMember.partial().extend({ redirect: z.literal('request').optional(), message: z.string().optional() }) } },
    },
    (req) => joinGroup(app.deps, actorOf(req), req.body.groupId),
  );

  // GroupMembers.View (the spec), or the caller's own membership: B1App's "Leave group". A removed membership is a
  // leave in the groups' history (the health screens).
  app.delete(`${base}/:id`, { config: { access: ownOrViewer }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await endMembership(app.deps, actorOf(req), req.params.id);
    return {};
  });
}
