import type { z } from 'zod';
import { hasPermission } from '@church/auth';
import { badRequest, getRow, reportChanges, unauthorized, type Actor } from '@church/common';
import { events } from '../../db/website';
import type { ContentDeps } from '../../deps';
import { occurrences } from '../../lib/occurrences';
import { deleteRsvp, eventWithExceptions, groupRsvps, upsertRsvp, type RsvpRow } from '../../repos/website/calendar';
import type { RsvpBody, RsvpCounts } from '../../schemas/calendar';
import { zoneOf } from './calendar';
import { inGroup } from './group-events';

type Counts = z.output<typeof RsvpCounts>;
/** What answers read and write: the database, the outbox (reported changes), membership, the config (time zone). */
export type RsvpDeps = Pick<ContentDeps, 'db' | 'queue' | 'module' | 'internal' | 'config'>;

/** The event (with its exception dates) a member of its group answers; 401 for anyone else. */
async function memberEvent(deps: RsvpDeps, actor: Actor, id: string) {
  const event = await eventWithExceptions(deps.db, actor.churchId, id);
  if (!event) await getRow(deps.db, events, actor.churchId, id, 'Event');
  if (!actor.personId || !(await inGroup(deps, actor, event!.groupId))) throw unauthorized('Only members of the event\'s group answer it');
  return event!;
}

/** The counts of answers per occurrence of a group's events in `[from, to]`, with the caller's own answer. */
export async function rsvpCounts(deps: RsvpDeps, actor: Actor, groupId: string, from: Date, to: Date): Promise<Counts[]> {
  if (!(await inGroup(deps, actor, groupId)) && !hasPermission(actor, 'Groups.Edit')) throw unauthorized('Only members of the group read its answers');
  if (to < from) throw badRequest('to', 'must not be before from', 'query');
  const counts = new Map<string, Counts>();
  for (const r of await groupRsvps(deps.db, actor.churchId, groupId, from, to)) {
    const key = `${r.eventId}|${r.occurrenceStart.getTime()}`;
    const entry = counts.get(key) ?? counts.set(key, { eventId: r.eventId, occurrenceStart: r.occurrenceStart, yes: 0, no: 0, maybe: 0, mine: null }).get(key)!;
    const response = r.response as 'yes' | 'no' | 'maybe';
    entry[response]++;
    if (r.personId === actor.personId) entry.mine = response;
  }
  return [...counts.values()];
}

/**
 * A member's answer to one occurrence of their group's event. The answer must be for one of the event's
 * occurrences (not an exception date). The apps expand recurrences in the browser's zone and key answers by their
 * own start, so a start within a day of an occurrence in the church's zone is taken as the app sent it.
 */
export async function answerRsvp(deps: RsvpDeps, actor: Actor, id: string, body: z.output<typeof RsvpBody>): Promise<RsvpRow> {
  const churchId = actor.churchId;
  const event = await memberEvent(deps, actor, id);
  if (event.rsvpDisabled) throw badRequest('response', 'answers are turned off for this event');
  const at = body.occurrenceStart;
  const tz = await zoneOf(deps, deps.db, churchId);
  const slack = 26 * 3_600_000;
  const found = occurrences(event, new Date(at.getTime() - slack), new Date(at.getTime() + slack), tz).some((o) => Math.abs(o.start.getTime() - at.getTime()) <= slack);
  if (!found) throw badRequest('occurrenceStart', 'is not an occurrence of the event');
  return deps.db.transaction(async (tx) => {
    const { before, after } = await upsertRsvp(tx, churchId, { eventId: event.id, personId: actor.personId!, occurrenceStart: at, response: body.response });
    await reportChanges(deps, [{ churchId, entityType: 'eventRsvp', entityId: after.id, action: before ? 'updated' : 'created', before, after }], { req: actor, tx });
    return after;
  });
}

/** Takes a member's answer to one occurrence back. */
export async function withdrawRsvp(deps: RsvpDeps, actor: Actor, id: string, occurrenceStart: Date): Promise<void> {
  const churchId = actor.churchId;
  const event = await memberEvent(deps, actor, id);
  await deps.db.transaction(async (tx) => {
    const gone = await deleteRsvp(tx, churchId, event.id, actor.personId!, occurrenceStart);
    await reportChanges(deps, gone.map((before) => ({ churchId, entityType: 'eventRsvp', entityId: before.id, action: 'destroyed', before })), { req: actor, tx });
  });
}
