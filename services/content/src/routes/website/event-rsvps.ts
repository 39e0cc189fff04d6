import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission, requires } from '@church/auth';
import { badRequest, Empty, getRow, IdParams, reportChanges, unauthorized, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { events } from '../../db/website';
import { zoneOf } from '../../domain/website/calendar';
import { personGroupIds } from '../../domain/website/membership';
import { occurrences } from '../../lib/occurrences';
import { deleteRsvp, eventWithExceptions, groupRsvps, rsvpRoster, upsertRsvp } from '../../repos/website/calendar';
import { OccurrenceQuery, RosterEntry, Rsvp, RsvpBody, RsvpCounts, RsvpWindowQuery } from '../../schemas/calendar';
import { GroupParams } from '../../schemas/website';

const base = '/content/events';
type Counts = z.output<typeof RsvpCounts>;

/**
 * `/content/events/:id/rsvp(s)`: members' answers (going, maybe, not going) to each occurrence of their groups'
 * events. Members and leaders of the event's group answer and read the counts; leaders of the group and
 * `Groups.Edit` holders read who answered what.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = contentDeps(app);

  /** Whether the caller belongs to (or leads) the group; the token carries only the groups one leads. */
  const inGroup = async (req: FastifyRequest, groupId: string | null) => {
    if (!groupId) return false;
    if (req.auth.leaderGroupIds.includes(groupId)) return true;
    return req.auth.personId ? (await personGroupIds(app, req.auth.churchId, req.auth.personId)).includes(groupId) : false;
  };
  const memberEvent = async (req: FastifyRequest, id: string) => {
    const event = await eventWithExceptions(app.db, req.auth.churchId, id);
    if (!event) await getRow(app.db, events, req.auth.churchId, id, 'Event');
    if (!req.auth.personId || !(await inGroup(req, event!.groupId))) throw unauthorized('Only members of the event\'s group answer it');
    return event!;
  };

  app.get(`${base}/rsvps/group/:groupId`, { config: { access: anyUser }, schema: { params: GroupParams, querystring: RsvpWindowQuery, response: { 200: z.array(RsvpCounts) } } }, async (req) => {
    if (!(await inGroup(req, req.params.groupId)) && !hasPermission(req.auth, 'Groups.Edit')) throw unauthorized('Only members of the group read its answers');
    const from = req.query.from ?? new Date();
    const to = req.query.to ?? new Date(from.getTime() + 90 * 86_400_000);
    if (to < from) throw badRequest('to', 'must not be before from', 'query');
    const counts = new Map<string, Counts>();
    for (const r of await groupRsvps(app.db, req.auth.churchId, req.params.groupId, from, to)) {
      const key = `${r.eventId}|${r.occurrenceStart.getTime()}`;
      const entry = counts.get(key) ?? counts.set(key, { eventId: r.eventId, occurrenceStart: r.occurrenceStart, yes: 0, no: 0, maybe: 0, mine: null }).get(key)!;
      const response = r.response as 'yes' | 'no' | 'maybe';
      entry[response]++;
      if (r.personId === req.auth.personId) entry.mine = response;
    }
    return [...counts.values()];
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

  app.post(`${base}/:id/rsvp`, { config: { access: anyUser }, schema: { params: IdParams, body: RsvpBody, response: { 200: Rsvp } } }, async (req) => {
    const churchId = req.auth.churchId;
    const event = await memberEvent(req, req.params.id);
    if (event.rsvpDisabled) throw badRequest('response', 'answers are turned off for this event');
    // The answer must be for one of the event's occurrences (not an exception date). The apps expand recurrences
    // in the browser's zone and key answers by their own start, so a start within a day of an occurrence in the
    // church's zone is taken as the app sent it.
    const at = req.body.occurrenceStart;
    const tz = await zoneOf(app, app.db, churchId);
    const slack = 26 * 3_600_000;
    const found = occurrences(event, new Date(at.getTime() - slack), new Date(at.getTime() + slack), tz).some((o) => Math.abs(o.start.getTime() - at.getTime()) <= slack);
    if (!found) throw badRequest('occurrenceStart', 'is not an occurrence of the event');
    return app.db.transaction(async (tx) => {
      const { before, after } = await upsertRsvp(tx, churchId, { eventId: event.id, personId: req.auth.personId!, occurrenceStart: at, response: req.body.response });
      await reportChanges(deps, [{ churchId, entityType: 'eventRsvp', entityId: after.id, action: before ? 'updated' : 'created', before, after }], { req, tx });
      return after;
    });
  });

  app.delete(`${base}/:id/rsvp`, { config: { access: anyUser }, schema: { params: IdParams, querystring: OccurrenceQuery, response: { 200: Empty } } }, async (req) => {
    const churchId = req.auth.churchId;
    const event = await memberEvent(req, req.params.id);
    await app.db.transaction(async (tx) => {
      const gone = await deleteRsvp(tx, churchId, event.id, req.auth.personId!, req.query.occurrenceStart);
      await reportChanges(deps, gone.map((before) => ({ churchId, entityType: 'eventRsvp', entityId: before.id, action: 'destroyed', before })), { req, tx });
    });
    return {};
  });
}
