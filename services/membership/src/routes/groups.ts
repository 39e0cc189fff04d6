import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission, requires, rule } from '@church/auth';
import { Empty, Id, IdList, IdParams, batchOf, notFound, reportChanges, sameRows, unauthorized, actorOf, type ZodTypeProvider } from '@church/common';
import { groupsMeetingAt } from '../clients/attendance';
import { groupHealth, healthSummary, recentHistory, summaryMembers } from '../domain/group-health';
import { saveGroups, toGroup } from '../domain/groups';
import { findGroup, findGroupBySlug, groupsOfPerson, listGroups, memberCounts, memberGroupIds, softDeleteGroup, type GroupRecord } from '../repos/groups';
import { Group, GroupList, GroupRecords, CountedGroupRecords, GroupSave, Health, HealthRow, ChurchParams, TagParams } from '../schemas/groups';


/** Reading one group's health: GroupMembers.View, or the caller leads that group. */
const leaderOrViewer = rule('GroupMembers.View or leader of the group', (req, auth) => {
  const id = (req.params as { id?: string }).id;
  return hasPermission(auth, 'GroupMembers.View') || (!!id && auth.leaderGroupIds.includes(id));
});
/** A group's plans: Groups.Edit, Plans.Edit, or a member of the group (checked in the handler). */
const planReaders = rule('Groups.Edit or Plans.Edit or member of the group', () => true);

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/groups';

  const groupsOf = (rows: Promise<GroupRecord[]>) => rows.then((list) => list.map(toGroup));
  const countedGroupsOf = async (churchId: string, rows: Promise<GroupRecord[]>) => {
    const [list, counts] = await Promise.all([rows, memberCounts(app.db, churchId)]);
    return list.map((g) => ({ ...toGroup(g), memberCount: counts.get(g.id) ?? 0 }));
  };
  const oneGroup = async (row: Promise<GroupRecord | undefined>, publicRead = false) => {
    const group = await row;
    // A public page never shows an archived group.
    if (!group || (publicRead && group.archived)) throw notFound('Group');
    return toGroup(group);
  };

  // The whole list (archived groups left out) is a snapshot: served again until a group of the church changes.
  // `?archived=1` lists the archived groups instead (B1Admin's groups page, to restore one).
  app.get(
    base,
    { config: { access: anyUser }, schema: { querystring: z.object({ archived: z.string().max(5).optional() }), response: { 200: CountedGroupRecords } } },
    (req, reply) => {
      const churchId = req.auth.churchId;
      if (req.query.archived === '1' || req.query.archived === 'true') return countedGroupsOf(churchId, listGroups(app.db, churchId, { archived: true }));
      return app.deps.snapshots.send(req, reply, churchId, 'all', () => countedGroupsOf(churchId, listGroups(app.db, churchId)));
    },
  );

  // B1Admin's groups health page: every standard group with its members and the last 90 days' joins and leaves.
  // The groups and their members' stats are kept per data version and day (ages); the 90-day joins and leaves are
  // read each time (one statement on group_member_history_church_at_idx, as the window moves), and the answer is
  // sent from its kept compressed body while its rows are the same.
  app.get(`${base}/health/summary`, { config: { access: requires('GroupMembers.View') }, schema: { response: { 200: z.array(HealthRow) } } }, async (req, reply) => {
    const churchId = req.auth.churchId;
    const [members, history] = await Promise.all([
      app.deps.snapshots
        .version(churchId)
        .then((version) =>
          app.deps.snapshots.value(`group-health-members\n${churchId}\n${new Date().toISOString().slice(0, 10)}`, version, () => summaryMembers(app.db, churchId), (m) => 200 * (m.groups.length + m.stats.length)),
        ),
      recentHistory(app.db, churchId),
    ]);
    return app.deps.snapshots.sendKept(req, reply, churchId, healthSummary(members, history), sameRows);
  });

  app.get(
    `${base}/search`,
    {
      config: { access: anyUser },
      schema: { querystring: z.object({ campusId: Id.optional(), serviceId: Id.optional(), serviceTimeId: Id.optional() }), response: { 200: GroupRecords } },
    },
    async (req) => {
      const churchId = req.auth.churchId;
      // Which groups meet at a service time is attendance's data (group service times); when attendance
      // cannot answer, the search is a 502, not an empty list that looks like "no groups".
      const groupIds = (await groupsMeetingAt(app.deps.internal, { churchId, ...req.query })).filter((id) => Id.safeParse(id).success);
      return groupIds.length ? groupsOf(listGroups(app.db, churchId, { ids: groupIds })) : [];
    },
  );

  // B1Admin's serving screens read several groups at once.
  app.get(`${base}/ids`, { config: { access: anyUser }, schema: { querystring: z.object({ ids: IdList }), response: { 200: GroupRecords } } }, (req) =>
    groupsOf(listGroups(app.db, req.auth.churchId, { ids: req.query.ids, includeArchived: true })),
  );

  app.get(`${base}/my`, { config: { access: anyUser }, schema: { response: { 200: GroupList } } }, async (req) =>
    req.auth.personId ? groupsOf(groupsOfPerson(app.db, req.auth.churchId, req.auth.personId)) : [],
  );

  app.get(`${base}/my/:tag`, { config: { access: anyUser }, schema: { params: TagParams, response: { 200: GroupList } } }, async (req) =>
    req.auth.personId ? groupsOf(groupsOfPerson(app.db, req.auth.churchId, req.auth.personId, req.params.tag)) : [],
  );

  // Kept per data version and tag like `GET /groups` (the standard tag is 300 groups with their member counts, a
  // pass over the church's members and people).
  app.get(`${base}/tag/:tag`, { config: { access: anyUser }, schema: { params: TagParams, response: { 200: CountedGroupRecords } } }, (req, reply) =>
    app.deps.snapshots.send(req, reply, req.auth.churchId, `tag\n${req.params.tag}`, () => countedGroupsOf(req.auth.churchId, listGroups(app.db, req.auth.churchId, { tag: req.params.tag }))),
  );

  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Group } } }, async (req) =>
    oneGroup(findGroup(app.db, req.auth.churchId, req.params.id)),
  );

  // B1Admin's group health tab.
  app.get(`${base}/:id/health`, { config: { access: leaderOrViewer }, schema: { params: IdParams, response: { 200: Health } } }, async (req) => {
    if (!(await findGroup(app.db, req.auth.churchId, req.params.id))) throw notFound('Group');
    return groupHealth(app.db, req.auth.churchId, req.params.id);
  });

  // B1App's group page lists the plans of the plan types associated with the group. Associations of plan types
  // with groups are not kept yet (a later issue: associated groups), so no group has plans: an empty list.
  app.get(`${base}/:id/plans`, { config: { access: planReaders }, schema: { params: IdParams, response: { 200: z.array(z.object({ id: z.string() }).passthrough()) } } }, async (req) => {
    const { churchId, personId } = req.auth;
    const staff = hasPermission(req.auth, 'Groups.Edit') || hasPermission(req.auth, 'Plans.Edit');
    if (!staff && !(personId && (await memberGroupIds(app.db, churchId, personId, [req.params.id])).size)) throw unauthorized('Only members of the group see its plans');
    if (!(await findGroup(app.db, churchId, req.params.id))) throw notFound('Group');
    return [];
  });

  app.get(
    `${base}/public/:churchId/:id`,
    { config: { access: 'public' }, schema: { params: ChurchParams.extend({ id: Id }), response: { 200: Group } } },
    async (req) => oneGroup(findGroup(app.db, req.params.churchId, req.params.id), true),
  );

  // B1App's groups browser: the church's groups a visitor may see (live, not archived).
  app.get(`${base}/public/:churchId/list`, { config: { access: 'public' }, schema: { params: ChurchParams, response: { 200: GroupRecords } } }, (req) =>
    groupsOf(listGroups(app.db, req.params.churchId)),
  );

  app.get(
    `${base}/public/:churchId/tag/:tag`,
    { config: { access: 'public' }, schema: { params: ChurchParams.extend(TagParams.shape), response: { 200: GroupRecords } } },
    (req) => groupsOf(listGroups(app.db, req.params.churchId, { tag: req.params.tag })),
  );

  app.get(
    `${base}/public/:churchId/label`,
    {
      config: { access: 'public' },
      schema: { params: ChurchParams, querystring: z.object({ label: z.string().trim().min(1).max(100) }), response: { 200: GroupRecords } },
    },
    (req) => groupsOf(listGroups(app.db, req.params.churchId, { label: req.query.label })),
  );

  app.get(
    `${base}/public/:churchId/slug/:slug`,
    { config: { access: 'public' }, schema: { params: ChurchParams.extend({ slug: z.string().trim().toLowerCase().min(1).max(100) }), response: { 200: Group } } },
    async (req) => oneGroup(findGroupBySlug(app.db, req.params.churchId, req.params.slug), true),
  );

  app.post(base, { config: { access: requires('Groups.Edit') }, schema: { body: batchOf(GroupSave), response: { 200: GroupList } } }, (req) =>
    groupsOf(saveGroups(app.db, req.auth.churchId, req.body, { deps: app.deps, actor: actorOf(req) })),
  );

  app.delete(`${base}/:id`, { config: { access: requires('Groups.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const { churchId } = req.auth;
    await app.db.transaction(async (tx) => {
      if (!(await softDeleteGroup(tx, churchId, req.params.id))) throw notFound('Group');
      await reportChanges(app.deps, [{ churchId, entityType: 'group', entityId: req.params.id, action: 'destroyed', event: 'group.destroyed', data: { id: req.params.id } }], { req, tx });
    });
    return {};
  });
}
