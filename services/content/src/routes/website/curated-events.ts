import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { REMOTE, badRequest, batchOf, checkBatch, crud, Empty, findRow, getRow, itemParam, notFound, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { curatedCalendars, curatedEvents, events } from '../../db/website';
import { calendarEntries, calendarEvents, deleteEntries, findEntry, type CuratedEntry } from '../../repos/website/events';
import {
  CalendarEventParams,
  CalendarGroupParams,
  CalendarParams,
  ChurchCalendarParams,
  CuratedEvent,
  CuratedEventSave,
  CuratedEventWithEvents,
  Events,
  WithoutEventsQuery,
} from '../../schemas/website';

const base = '/content/curatedEvents';
const edit = requires('Content.Edit');
type Entry = CuratedEntry;

/**
 * `/content/curatedEvents`: what a curated calendar holds: single events of groups, or whole groups (an entry
 * without `eventId` holds every event of its group, present and future).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  crud(app, { path: base, table: curatedEvents, item: CuratedEvent, save: CuratedEventSave, view: anyUser, edit, only: ['list', 'get', 'delete'] });

  app.get(
    `${base}/calendar/:curatedCalendarId`,
    { config: { access: anyUser }, schema: { params: CalendarParams, querystring: WithoutEventsQuery, response: { 200: z.array(CuratedEventWithEvents) } } },
    async (req) => {
      const churchId = req.auth.churchId;
      const entries = await calendarEntries(app.db, churchId, req.params.curatedCalendarId);
      const without = req.query.withoutEvents !== undefined && req.query.withoutEvents !== 'false' && req.query.withoutEvents !== '0';
      if (without || !entries.length) return entries;
      const all = await calendarEvents(app.db, churchId, req.params.curatedCalendarId, false);
      // one row per event of an entry (an entry without events once), the event's fields beside the entry's
      return entries.flatMap((e) => {
        const own = all.filter((ev) => (e.eventId ? ev.id === e.eventId : ev.groupId === e.groupId));
        if (!own.length) return [{ ...e, events: own }];
        return own.map((ev) => ({
          ...e,
          events: own,
          realEventId: ev.id,
          curatedGroupId: e.groupId,
          title: ev.title,
          description: ev.description,
          start: ev.start,
          end: ev.end,
          allDay: ev.allDay,
          recurrenceRule: ev.recurrenceRule,
          visibility: ev.visibility,
          exceptionDates: ev.exceptionDates,
        }));
      });
    },
  );

  app.get(
    `${base}/public/calendar/:churchId/:curatedCalendarId`,
    { config: { access: 'public' }, schema: { params: ChurchCalendarParams, response: { 200: Events } } },
    // Kept per calendar and data version like the group calendars (curated calendars and entries, events and
    // exceptions raise it); an unknown calendar is a 404 and nothing is kept.
    async (req, reply) => {
      const { churchId, curatedCalendarId } = req.params;
      return app.deps.snapshots.send(req, reply, churchId, curatedCalendarId, async () => {
        await getRow(app.db, curatedCalendars, churchId, curatedCalendarId, 'Calendar');
        return calendarEvents(app.db, churchId, curatedCalendarId, true);
      });
    },
  );

  // `eventIds` adds one entry per event of the group; without events an entry holds the whole group. An
  // entry the calendar already has is answered, not added twice.
  app.post(base, { config: { access: edit }, schema: { body: batchOf(CuratedEventSave), response: { 200: z.array(CuratedEvent) } } }, async (req) => {
    const churchId = req.auth.churchId;
    // the calendar, the group and the events an entry names are the church's (membership asked before the transaction)
    await checkBatch(app.db, req, req.body, { references: { curatedCalendarId: curatedCalendars, groupId: REMOTE.groups, eventId: events, eventIds: events } });
    const eventRows = new Map(
      (await rowsByIds(app.db, events, churchId, req.body.flatMap((x) => [...(x.eventIds ?? []), ...(x.eventId ? [x.eventId] : [])]))).map((r) => [r.id, r]),
    );
    return app.db.transaction(async (tx) => {
      const out: Entry[] = [];
      for (const [i, item] of req.body.entries()) {
        const at = (field: string) => itemParam(req, i, field);
        const old = item.id ? await findRow(tx, curatedEvents, churchId, item.id) : undefined;
        if (item.id && !old) throw notFound('Curated event');
        const calendarId = item.curatedCalendarId ?? old?.curatedCalendarId;
        if (!calendarId) throw badRequest(at('curatedCalendarId'), 'is required');
        const wanted = item.eventIds?.length ? item.eventIds : [item.eventId === undefined ? (old?.eventId ?? null) : item.eventId];
        for (const [k, eventId] of wanted.entries()) {
          const event = eventId ? eventRows.get(eventId) : undefined;
          const field = item.eventIds?.length ? `${at('eventIds')}[${k}]` : at('eventId');
          if (eventId && !event) throw badRequest(field, 'no such event');
          const groupId = event?.groupId ?? item.groupId ?? old?.groupId;
          if (!groupId) throw badRequest(at('groupId'), 'is required');
          if (event && item.groupId && event.groupId !== item.groupId) throw badRequest(field, 'the event belongs to another group');
          const values = { curatedCalendarId: calendarId, groupId, eventId: eventId ?? null };
          if (old && k === 0) {
            out.push(...(await saveRows(tx, curatedEvents, churchId, [{ ...values, id: old.id }])));
            continue;
          }
          out.push((await findEntry(tx, churchId, values)) ?? (await saveRows(tx, curatedEvents, churchId, [values]))[0]!);
        }
      }
      return out;
    });
  });

  app.delete(
    `${base}/calendar/:curatedCalendarId/event/:eventId`,
    { config: { access: edit }, schema: { params: CalendarEventParams, response: { 200: Empty } } },
    async (req) => {
      const churchId = req.auth.churchId;
      await getRow(app.db, curatedCalendars, churchId, req.params.curatedCalendarId, 'Calendar');
      await deleteEntries(app.db, churchId, req.params.curatedCalendarId, { eventId: req.params.eventId });
      return {};
    },
  );
  app.delete(
    `${base}/calendar/:curatedCalendarId/group/:groupId`,
    { config: { access: edit }, schema: { params: CalendarGroupParams, response: { 200: Empty } } },
    async (req) => {
      const churchId = req.auth.churchId;
      await getRow(app.db, curatedCalendars, churchId, req.params.curatedCalendarId, 'Calendar');
      await deleteEntries(app.db, churchId, req.params.curatedCalendarId, { groupId: req.params.groupId });
      return {};
    },
  );
}

