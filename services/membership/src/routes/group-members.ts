import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission, requires, rule } from '@church/auth';
import { Id, IdList, IdParams, IsoDate, batchOf, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { saveMembers, toMember, toPublicMember } from '../domain/group-members';
import { deleteMember, findGroup, listMembers, memberGroupIds } from '../repos/groups';

const PersonBrief = z.object({
  id: z.string(),
  name: z.object({ first: z.string().nullable(), last: z.string().nullable(), display: z.string().nullable() }),
  photo: z.string().nullable(),
  membershipStatus: z.string().nullable(),
  contactInfo: z.object({ email: z.string().nullable() }).optional(),
});
const GroupMember = z.object({
  id: z.string(),
  churchId: z.string(),
  groupId: z.string(),
  personId: z.string(),
  leader: z.boolean(),
  joinDate: z.date(),
  person: PersonBrief.optional(),
});
const GroupMemberList = z.array(GroupMember);
const PublicMember = z.object({ personId: z.string(), displayName: z.string().nullable(), leader: z.boolean(), photo: z.string().nullable() });
const PublicMemberList = z.array(PublicMember);

const MemberSave = z
  .object({ id: Id.optional(), groupId: Id.optional(), personId: Id.optional(), leader: z.boolean().optional(), joinDate: IsoDate.optional() })
  .refine((m) => m.id || (m.groupId && m.personId), { message: 'groupId and personId are required', path: ['groupId'] });

const ListQuery = z.object({ groupId: Id.optional(), groupIds: IdList.optional(), personId: Id.optional() });
const PublicParams = z.object({ churchId: Id, groupId: Id });

/**
 * Spec: "GroupMembers.View, or caller is in the group, or queries own personId". The last two depend on the
 * query and on memberships, so the handler decides; any authenticated caller gets that far.
 */
const listAccess = rule('GroupMembers.View, or caller is in the group, or queries own personId', () => true);

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/groupmembers';

  app.get(base, { config: { access: listAccess }, schema: { querystring: ListQuery, response: { 200: GroupMemberList } } }, async (req) => {
    const { churchId, personId: me } = req.auth;
    const { groupId, groupIds, personId } = req.query;
    const ids = groupIds ?? (groupId ? [groupId] : undefined);
    const canView = hasPermission(req.auth, 'GroupMembers.View');
    if (!canView) {
      const ownOnly = !!personId && personId === me && !ids;
      if (!ownOnly) {
        if (!ids?.length || !me) throw unauthorized('Missing permission: GroupMembers.View');
        const mine = await memberGroupIds(app.db, churchId, me, ids);
        if (!ids.every((id) => mine.has(id))) throw unauthorized('Missing permission: GroupMembers.View');
      }
    }
    const rows = await listMembers(app.db, churchId, { groupIds: ids, personId });
    return rows.map((r) => toMember(r, canView));
  });

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
      if (!(await findGroup(app.db, req.params.churchId, req.params.groupId))) throw notFound('Group');
      return (await listMembers(app.db, req.params.churchId, { groupIds: [req.params.groupId], leadersOnly: true })).map(toPublicMember);
    },
  );

  app.get(
    `${base}/public/:churchId/:groupId`,
    { config: { access: 'public' }, schema: { params: PublicParams, response: { 200: PublicMemberList } } },
    async (req) => {
      const group = await findGroup(app.db, req.params.churchId, req.params.groupId);
      // A roster is public only by the group's opt-in; otherwise it is indistinguishable from no group.
      if (!group?.publicRoster) throw notFound('Group');
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
    (req) => saveMembers(app.db, req.auth.churchId, req.body),
  );

  app.delete(`${base}/:id`, { config: { access: requires('GroupMembers.View') }, schema: { params: IdParams } }, async (req) => {
    if (!(await deleteMember(app.db, req.auth.churchId, req.params.id))) throw notFound('Group member');
    return {};
  });
}
