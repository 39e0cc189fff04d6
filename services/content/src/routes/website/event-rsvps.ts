import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission, requires } from '@church/auth';
import { actorOf, DAY_MS, Empty, getRow, IdParams, unauthorized, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { events } from '../../db/website';
import { answerRsvp, rsvpCounts, withdrawRsvp } from '../../domain/website/rsvps';
import { rsvpRoster } from '../../repos/website/calendar';
import { OccurrenceQuery, RosterEntry, Rsvp, RsvpBody, RsvpCounts, RsvpWindowQuery } from '../../schemas/calendar';
import { GroupParams } from '../../schemas/website';

const base = '/content/events';

/**
 * `/content/events/:id/rsvp(s)`: members' answers (going, maybe, not going) to each occurrence of their groups'
 * events. Members and leaders of the event's group answer and read the counts; leaders of the group and
 * `Groups.Edit` holders read who answered what.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = contentDeps(app);

  app.get(`${base}/rsvps/group/:groupId`, { config: { access: anyUser }, schema: { params: GroupParams, querystring: RsvpWindowQuery, response: { 200: z.array(RsvpCounts) } } }, async (req) => {
    const from = req.query.from ?? new Date();
    return rsvpCounts(deps, actorOf(req), req.params.groupId, from, req.query.to ?? new Date(from.getTime() + 90 * DAY_MS));
  });

  app.get(
    `${base}/:id/rsvps`,
    { config: { access: requires('Groups.Edit or Group Leader') }, schema: { params: IdParams, querystring: OccurrenceQuery, response: { 200: z.array(RosterEntry) } } },
    async (req) => {
      const event = await getRow(app.db, events, req.auth.churchId, req.params.id, 'Event');
      const leads = event.groupId !== null && req.auth.leaderGroupIds.includes(event.groupId);
      if (!leads && !hasPermission(req.auth, 'Groups.Edit')) throw unauthorized('Missing permission: Groups.Edit or leader of the event\'s group');
      return rsvpRoster(app.db, req.auth.churchId, event.id, req.query.occurrenceStart);
    },
  );

  app.post(`${base}/:id/rsvp`, { config: { access: anyUser }, schema: { params: IdParams, body: RsvpBody, response: { 200: Rsvp } } }, async (req) => answerRsvp(deps, actorOf(req), req.params.id, req.body));

  app.delete(`${base}/:id/rsvp`, { config: { access: anyUser }, schema: { params: IdParams, querystring: OccurrenceQuery, response: { 200: Empty } } }, async (req) => {
    await withdrawRsvp(deps, actorOf(req), req.params.id, req.query.occurrenceStart);
    return {};
  });
}
