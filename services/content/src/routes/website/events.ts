import type { FastifyInstance } from 'fastify';
import { anyUser, hasPermission, requires, rule } from '@church/auth';
import { actorOf, badRequest, batchOf, deleteRow, Empty, getRow, IdParams, itemParam, notFound, reportChanges, type Actor, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../deps';
import { websiteSettings } from '../../config/website';
import { curatedCalendars, events } from '../../db/website';
import { buildIcs, safeTimeZone } from '../../domain/website/events';
import { callerGroupIds, readsPrivate, saveEvents } from '../../domain/website/group-events';
import { holidaysBetween, MAX_HOLIDAY_YEARS } from '../../domain/website/holidays';
import { attachExceptions, calendarEvents, churchTimeZone, groupEvents, groupsTimeline, isOwnPendingRequest, registerableEvents } from '../../repos/website/events';
import { ChurchGroupParams, Event, EventIdsQuery, Events, EventSave, GroupParams, Holidays, HolidaysQuery, IcsFeed, SubscribeQuery, TimelineEvents } from '../../schemas/website';

const base = '/content/events';
/** The day a year after a `YYYY-MM-DD` day (29 February: 1 March). */
const yearAfter = (day: string) => {
  const d = new Date(`${day}T00:00:00Z`);
  return new Date(Date.UTC(d.getUTCFullYear() + 1, d.getUTCMonth(), d.getUTCDate())).toISOString().slice(0, 10);
};

/** `/content/events`: group events with exceptions and recurrence rules, timelines and the ICS feed. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = contentDeps(app);

  /** Upcoming events (not yet ended), or the ones asked for by id, as timeline posts. */
  const timeline = async (churchId: string, groupIds: string[], eventIds?: string[]) =>
    (await groupsTimeline(app.db, churchId, groupIds, eventIds)).map((e) => ({ ...e, postType: 'event' as const, postId: e.id }));

  const visibleTo = async <T extends { visibility: string }>(actor: Actor, groupId: string, rows: T[]) =>
    (await readsPrivate(deps, actor, groupId)) ? rows : rows.filter((e) => e.visibility === 'public');

  app.get(`${base}/timeline/group/:groupId`, { config: { access: anyUser }, schema: { params: GroupParams, querystring: EventIdsQuery, response: { 200: TimelineEvents } } }, async (req) =>
    visibleTo(actorOf(req), req.params.groupId, await timeline(req.auth.churchId, [req.params.groupId], req.query.eventIds)),
  );
  // The caller's groups come from membership (the token carries only the groups they lead).
  app.get(`${base}/timeline`, { config: { access: anyUser }, schema: { querystring: EventIdsQuery, response: { 200: TimelineEvents } } }, async (req) => {
    const groups = await callerGroupIds(deps, actorOf(req));
    return timeline(req.auth.churchId, [...new Set([...groups, ...req.auth.leaderGroupIds])], req.query.eventIds);
  });

  // Calendar apps poll this feed: the text is kept per church and data version (events, exceptions, curated
  // calendars and settings raise it), compressed once (a 200-event feed: about 100 KB of text, a few KB of
  // brotli), so a poll costs one version lookup while nothing changed.
  app.get(`${base}/subscribe`, { config: { access: 'public' }, schema: { querystring: SubscribeQuery, produces: ['text/calendar'], response: { 200: IcsFeed } } }, async (req, reply) => {
    const { churchId, groupId, curatedCalendarId } = req.query;
    if (!groupId && !curatedCalendarId) throw badRequest('groupId', 'groupId or curatedCalendarId is required', 'query');
    const version = await app.deps.snapshots.version(churchId);
    const which = curatedCalendarId ? `calendar:${curatedCalendarId}` : `group:${groupId}`;
    return app.deps.snapshots.sendAt(req, reply, churchId, which, version, () => feed(churchId, groupId, curatedCalendarId), {
      type: 'text/calendar; charset=utf-8',
      cacheControl: 'public, max-age=300',
    });
  });

  async function feed(churchId: string, groupId?: string, curatedCalendarId?: string): Promise<string> {
    let name = 'Events';
    let list;
    if (curatedCalendarId) {
      const calendar = await getRow(app.db, curatedCalendars, churchId, curatedCalendarId, 'Calendar');
      name = calendar.name;
      list = await calendarEvents(app.db, churchId, curatedCalendarId, true);
    } else {
      list = await groupEvents(app.db, churchId, groupId!, true);
    }
    const fallback = websiteSettings(deps.config).defaultTimeZone;
    const timeZone = safeTimeZone(await churchTimeZone(app.db, churchId, fallback), fallback);
    return buildIcs({ name, timeZone, host: 'content.church', events: list });
  }

  // A group's calendar (B1Admin's and B1App's group calendar tabs, the website's group calendar): every event
  // the group ever had, so the answer is kept per church, group and reach (public only, or all) and data version
  // (events and exceptions raise it), compressed once; a read then costs the version lookup (and, for a member,
  // the question to membership whether they are in the group).
  app.get(`${base}/group/:groupId`, { config: { access: anyUser }, schema: { params: GroupParams, response: { 200: Events } } }, async (req, reply) => {
    const { churchId } = req.auth;
    const publicOnly = !(await readsPrivate(deps, actorOf(req), req.params.groupId));
    return app.deps.snapshots.send(req, reply, churchId, `${req.params.groupId}\n${publicOnly ? 'public' : 'all'}`, () => groupEvents(app.db, churchId, req.params.groupId, publicOnly));
  });
  app.get(`${base}/public/group/:churchId/:groupId`, { config: { access: 'public' }, schema: { params: ChurchGroupParams, response: { 200: Events } } }, async (req, reply) =>
    app.deps.snapshots.send(req, reply, req.params.churchId, req.params.groupId, () => groupEvents(app.db, req.params.churchId, req.params.groupId, true)),
  );
  // The events people may register for (B1Admin's registrations list, B1App's groups screen), by start.
  // Website editors see all of them; everyone else those not over whose registration has not closed.
  app.get(`${base}/registerable`, { config: { access: anyUser }, schema: { response: { 200: Events } } }, async (req) => {
    return registerableEvents(app.db, req.auth.churchId, hasPermission(req.auth, 'Content.Edit', 'ContentApi') ? undefined : new Date());
  });
  // The holidays of a window (B1Admin's bulk group events, "Skip holidays"): a fixed US set, by date. A static
  // route: before it existed, `holidays` reached `/:id` and answered a 400 naming `id`.
  app.get(`${base}/holidays`, { config: { access: anyUser }, schema: { querystring: HolidaysQuery, response: { 200: Holidays } } }, async (req) => {
    const start = req.query.start ?? new Date().toISOString().slice(0, 10);
    const end = req.query.end ?? yearAfter(start);
    if (end < start) throw badRequest('end', 'must not be before start', 'query');
    if (Number(end.slice(0, 4)) - Number(start.slice(0, 4)) > MAX_HOLIDAY_YEARS) throw badRequest('end', `must be at most ${MAX_HOLIDAY_YEARS} years after start`, 'query');
    return holidaysBetween(start, end);
  });
  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Event } } }, async (req) => {
    const row = await getRow(app.db, events, req.auth.churchId, req.params.id, 'Event');
    // an event the caller may not read is one they cannot tell from none
    if (row.visibility !== 'public' && !(await readsPrivate(deps, actorOf(req), row.groupId))) throw notFound('Event');
    return (await attachExceptions(app.db, req.auth.churchId, [row]))[0]!;
  });

  // Open to any user by the spec. An event of a group is written by website editors or that group's leaders; an
  // event without a group (a member's request) only by website editors (any signed-in member used to rewrite
  // those). A request becomes public only through its approval. The groups named must be the church's.
  app.post(base, { config: { access: anyUser }, schema: { body: batchOf(EventSave), response: { 200: Events } } }, async (req) =>
    saveEvents(deps, actorOf(req), req.body, (i, field) => itemParam(req, i, field)),
  );

  // Content.Edit by the spec; beside it, a member withdraws their own request while it waits (B1App MyRequestsPage).
  const ownPendingRequest = rule('own pending request', (req, auth) =>
    isOwnPendingRequest(app.db, auth.churchId, (req.params as { id?: string }).id ?? '', auth.personId).catch(() => false),
  );
  app.delete(`${base}/:id`, { config: { access: requires('Content.Edit', ownPendingRequest) }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await app.db.transaction(async (tx) => {
      const gone = await deleteRow(tx, events, req.auth.churchId, req.params.id, 'Event');
      await reportChanges(deps, [{ churchId: req.auth.churchId, entityType: 'event', entityId: gone.id, action: 'destroyed', event: 'event.destroyed', before: gone, data: { id: gone.id } }], { req, tx });
    });
    return {};
  });
}
