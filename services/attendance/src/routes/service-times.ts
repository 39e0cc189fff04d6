import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Id, IdParams, crud, notFound, type ZodTypeProvider } from '@church/common';
import { serviceTimes, services } from '../db/schema';
import { groupFiller } from '../clients/membership';
import { groupsByServiceTime, listServiceTimes, placeTree } from '../repos/places';
import { QueryId, ServiceTime, ServiceTimeSave, TreeCampus } from '../schemas';

const edit = requires('Services.Edit');
const List = z.array(ServiceTime);

/** `/attendance/servicetimes`: times of services, their group links on request, and the public tree. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/attendance/servicetimes',
    {
      config: { access: anyUser },
      schema: { querystring: z.object({ serviceId: QueryId, include: z.string().optional() }), response: { 200: List } },
    },
    async (req) => {
      const churchId = req.auth.churchId;
      const times = await listServiceTimes(app.db, churchId, { serviceId: req.query.serviceId });
      if (!req.query.include?.split(',').includes('groups')) return times;
      const [groups, fill] = await Promise.all([groupsByServiceTime(app.db, churchId, times.map((t) => t.id)), groupFiller(app.deps.internal, churchId)]);
      return times.map((t) => ({ ...t, groups: fill(groups.get(t.id) ?? []) }));
    },
  );

  app.get(
    '/attendance/servicetimes/search',
    { config: { access: anyUser }, schema: { querystring: z.object({ campusId: QueryId, serviceId: QueryId }), response: { 200: List } } },
    (req) => listServiceTimes(app.db, req.auth.churchId, req.query),
  );

  app.get(
    '/attendance/servicetimes/public/:churchId',
    { config: { access: 'public' }, schema: { params: z.object({ churchId: Id }), response: { 200: z.array(TreeCampus) } } },
    (req) => placeTree(app.db, req.params.churchId),
  );

  app.get('/attendance/servicetimes/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: ServiceTime } } }, async (req) => {
    const [row] = await listServiceTimes(app.db, req.auth.churchId, { ids: [req.params.id] });
    if (!row) throw notFound('Service time');
    return row;
  });

  // A new time needs its service, which must be the caller's church's; removal is a soft delete.
  crud(app, {
    path: '/attendance/servicetimes',
    table: serviceTimes,
    item: ServiceTime,
    save: ServiceTimeSave,
    view: anyUser,
    edit,
    only: ['save', 'delete'],
    references: { serviceId: services },
    requiredOnCreate: ['serviceId'],
    changes: { entityType: 'serviceTime' },
  });
}
