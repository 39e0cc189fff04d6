import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Id, IdParams, OptionalText, batchOf, exactShape, notFound, type ZodTypeProvider } from '@church/common';
import { askModule } from '../domain/downstream';
import { GROUP_TAGS, saveGroups } from '../domain/groups';
import { findGroup, findGroupBySlug, groupsOfPerson, listGroups, softDeleteGroup } from '../repos/groups';

/** Lists arrive as arrays or as the comma-separated strings older clients send. */
const commaList = <T>(item: z.ZodType<T, string>) =>
  z
    .union([z.array(z.string()), z.string()])
    .transform((v) => [...new Set((Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean))])
    .pipe(z.array(item).max(50));

const Tag = z.string().toLowerCase().pipe(z.enum(GROUP_TAGS, { message: `must be one of ${GROUP_TAGS.join(', ')}` }));

export const Group = z.object({
  id: z.string(),
  churchId: z.string(),
  categoryName: z.string().nullable(),
  name: z.string(),
  slug: z.string(),
  trackAttendance: z.boolean(),
  parentPickup: z.boolean(),
  printNametag: z.boolean(),
  about: z.string().nullable(),
  photoUrl: z.string().nullable(),
  tags: z.array(z.string()),
  labels: z.array(z.string()),
  meetingTime: z.string().nullable(),
  meetingLocation: z.string().nullable(),
  publicRoster: z.boolean(),
  parentGroupId: z.string().nullable(),
});
const GroupList = z.array(Group);
/** Lists read by `listGroups`, whose rows hold exactly the Group fields in this order (see `exactShape`). */
export const GroupRecords = exactShape(z.array(Group));

const GroupSave = z.object({
  id: Id.optional(),
  name: z.string().trim().min(1, 'name is required').max(200).optional(),
  categoryName: OptionalText,
  trackAttendance: z.boolean().optional(),
  parentPickup: z.boolean().optional(),
  printNametag: z.boolean().optional(),
  about: z.string().max(20_000).nullish(),
  photoUrl: OptionalText,
  tags: commaList(Tag).optional(),
  labels: commaList(z.string().max(100)).optional(),
  meetingTime: OptionalText,
  meetingLocation: OptionalText,
  publicRoster: z.boolean().optional(),
  parentGroupId: Id.nullish(),
});

const ChurchParams = z.object({ churchId: Id });
const TagParams = z.object({ tag: z.string().trim().toLowerCase().min(1).max(50) });

const AttendanceGroups = z.object({ groupIds: z.array(z.string()).max(100_000) });

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/groups';

  // The whole list is a snapshot: served again until a group of the church changes.
  app.get(base, { config: { access: anyUser }, schema: { response: { 200: GroupRecords } } }, (req, reply) =>
    app.deps.snapshots.send(req, reply, req.auth.churchId, 'all', () => listGroups(app.db, req.auth.churchId)),
  );

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
      const answer = await askModule(app.deps.internal, req.log, 'attendance', '/attendance/internal/groups', { churchId, ...req.query }, AttendanceGroups);
      const groupIds = answer.groupIds.filter((id) => Id.safeParse(id).success);
      return groupIds.length ? listGroups(app.db, churchId, { ids: groupIds }) : [];
    },
  );

  app.get(`${base}/my`, { config: { access: anyUser }, schema: { response: { 200: GroupList } } }, async (req) =>
    req.auth.personId ? groupsOfPerson(app.db, req.auth.churchId, req.auth.personId) : [],
  );

  app.get(`${base}/my/:tag`, { config: { access: anyUser }, schema: { params: TagParams, response: { 200: GroupList } } }, async (req) =>
    req.auth.personId ? groupsOfPerson(app.db, req.auth.churchId, req.auth.personId, req.params.tag) : [],
  );

  app.get(`${base}/tag/:tag`, { config: { access: anyUser }, schema: { params: TagParams, response: { 200: GroupRecords } } }, (req) =>
    listGroups(app.db, req.auth.churchId, { tag: req.params.tag }),
  );

  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Group } } }, async (req) => {
    const group = await findGroup(app.db, req.auth.churchId, req.params.id);
    if (!group) throw notFound('Group');
    return group;
  });

  app.get(
    `${base}/public/:churchId/:id`,
    { config: { access: 'public' }, schema: { params: ChurchParams.extend({ id: Id }), response: { 200: Group } } },
    async (req) => {
      const group = await findGroup(app.db, req.params.churchId, req.params.id);
      if (!group) throw notFound('Group');
      return group;
    },
  );

  app.get(
    `${base}/public/:churchId/tag/:tag`,
    { config: { access: 'public' }, schema: { params: ChurchParams.extend(TagParams.shape), response: { 200: GroupRecords } } },
    (req) => listGroups(app.db, req.params.churchId, { tag: req.params.tag }),
  );

  app.get(
    `${base}/public/:churchId/label`,
    {
      config: { access: 'public' },
      schema: { params: ChurchParams, querystring: z.object({ label: z.string().trim().min(1).max(100) }), response: { 200: GroupRecords } },
    },
    (req) => listGroups(app.db, req.params.churchId, { label: req.query.label }),
  );

  app.get(
    `${base}/public/:churchId/slug/:slug`,
    { config: { access: 'public' }, schema: { params: ChurchParams.extend({ slug: z.string().trim().toLowerCase().min(1).max(100) }), response: { 200: Group } } },
    async (req) => {
      const group = await findGroupBySlug(app.db, req.params.churchId, req.params.slug);
      if (!group) throw notFound('Group');
      return group;
    },
  );

  app.post(base, { config: { access: requires('Groups.Edit') }, schema: { body: batchOf(GroupSave), response: { 200: GroupList } } }, (req) =>
    saveGroups(app.db, req.auth.churchId, req.body),
  );

  app.delete(`${base}/:id`, { config: { access: requires('Groups.Edit') }, schema: { params: IdParams } }, async (req) => {
    const done = await app.db.transaction((tx) => softDeleteGroup(tx, req.auth.churchId, req.params.id));
    if (!done) throw notFound('Group');
    return {};
  });
}
