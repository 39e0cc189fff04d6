import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { REMOTE, crud, type ZodTypeProvider } from '@church/common';
import { groupServiceTimes, serviceTimes } from '../db/schema';
import { listGroupServiceTimes } from '../repos/places';
import { GroupServiceTime, GroupServiceTimeSave, QueryId } from '../schemas';

const edit = requires('Services.Edit');
const List = z.array(GroupServiceTime);

/** `/attendance/groupservicetimes`: which service times a group (a membership id) meets at. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/attendance/groupservicetimes',
    { config: { access: anyUser }, schema: { querystring: z.object({ groupId: QueryId }), response: { 200: List } } },
    (req) => listGroupServiceTimes(app.db, req.auth.churchId, req.query.groupId),
  );

  // The standard get, save and delete; a link's service time must be the caller's church's.
  crud(app, {
    path: '/attendance/groupservicetimes',
    table: groupServiceTimes,
    item: GroupServiceTime,
    save: GroupServiceTimeSave,
    view: anyUser,
    edit,
    only: ['get', 'save', 'delete'],
    references: { serviceTimeId: serviceTimes, groupId: REMOTE.groups },
    requiredOnCreate: ['serviceTimeId'],
    changes: { entityType: 'groupServiceTime' },
  });
}
