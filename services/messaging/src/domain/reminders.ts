import { hasPermission, type Claims } from '@church/auth';
import { badRequest, DAY_MS, notFound, reportChanges, unauthorized, type Actor } from '@church/common';
import type { MessagingDeps } from '../deps';
import { eventOccurrences, eventRegistrations, type ReminderEvent } from '../clients/content';
import { planPeople, planTypePlans, task as loadTask, type ReminderPlan, type ReminderTask } from '../clients/doing';
import { churchTimeZone, contacts } from '../clients/membership';
import { expandReminders, type DeliveryOptions } from '../jobs/contracts';
import { definitionById, deleteDefinition, upsertDefinition, type DefinitionRow, type OccurrenceRow, type PlannedOccurrence, type Target } from '../repos/reminders';
import type { SaveReminder } from '../schemas/reminders';
import { endOfDay, localDay, zonedInstant } from '@church/common';

/** How far ahead reminders are planned (and the hourly refresh rolls the window on). */
export const HORIZON_DAYS = 14;
/** The longest a reminder may go out before its day: the planning horizon. */
export const MAX_OFFSET_MINUTES = HORIZON_DAYS * 24 * 60;

/** The kinds of things a reminder is set on, and who may be reminded of each (the first is the default). */
export const RECIPIENT_MODES = new Map<string, string[]>([
  ['event', ['auto', 'registrants', 'registrantsHoh', 'group']],
  ['plan', ['assignments']],
  ['task', ['assignee']],
]);

/** The recipient mode a save names, checked against its kind (400 naming `recipientMode`). */
export function recipientModeFor(entityType: string, mode: string | null | undefined): string {
  const modes = RECIPIENT_MODES.get(entityType)!;
  if (!mode) return modes[0]!;
  if (!modes.includes(mode)) throw badRequest('recipientMode', `must be one of ${modes.join(', ')}`);
  return mode;
}

/** One day (or start) of an entity a reminder counts back from. */
interface Occurrence {
  /** the key of the occurrence: an event's start (ISO), a plan's or task's day */
  occurrence: string;
  /** the church's calendar day it falls on */
  day: string;
  /** after this a reminder is of no use */
  expiresAt: Date;
  startsAt?: Date;
}

/** An event, plan or task as a reminder reads it: what it is called, where it leads, its occurrences. */
interface Subject {
  entityId: string;
  title: string;
  link: string | null;
  occurrences: Occurrence[];
  event?: ReminderEvent;
  plan?: ReminderPlan;
  /** a plan's people, when they came with it */
  assigned?: string[];
  task?: ReminderTask;
}

const CLOSED_TASK = /^(closed|complete|completed|done)$/i;

function eventSubject(event: ReminderEvent, starts: string[], tz: string): Subject {
  return {
    entityId: event.id,
    title: event.title || 'an event',
    // B1App's screens: the group's events, or the registration page of an event without a group
    link: event.groupId ? `/mobile/groups/${event.groupId}?activeTab=events` : event.registrationEnabled ? `/mobile/register/${event.id}` : null,
    occurrences: eventOccurrencesOf(starts, tz),
    event,
  };
}

function planSubject(plan: ReminderPlan, tz: string): Subject {
  const day = plan.serviceDate;
  return { entityId: plan.id, title: plan.name || 'a plan', link: `/mobile/plans/${plan.id}`, occurrences: day ? [{ occurrence: day, day, expiresAt: endOfDay(day, tz) }] : [], plan };
}

function taskSubject(task: ReminderTask, tz: string): Subject {
  const due = task.dueDate;
  const day = !due || CLOSED_TASK.test(task.status ?? '') ? null : /^\d{4}-\d{2}-\d{2}$/.test(due) ? due : localDay(new Date(due), tz);
  return { entityId: task.id, title: task.title || 'a task', link: `/tasks/${task.id}`, occurrences: day ? [{ occurrence: day, day, expiresAt: endOfDay(day, tz) }] : [], task };
}

/** The occurrences of an event starting in `[from, to)`, each keyed by its start. */
function eventOccurrencesOf(starts: string[], tz: string): Occurrence[] {
  return starts.map((s) => {
    const startsAt = new Date(s);
    return { occurrence: startsAt.toISOString(), day: localDay(startsAt, tz), expiresAt: startsAt, startsAt };
  });
}

/** The event of the church, or 404. */
export async function eventOf(deps: MessagingDeps, churchId: string, eventId: string): Promise<ReminderEvent> {
  const now = new Date();
  const { event } = await eventOccurrences(deps, churchId, eventId, now, now);
  if (!event) throw notFound('Event');
  return event;
}

/**
 * Who may set, read and remove reminders (README): an event's, holders of Content.Edit and the leaders of the
 * event's group (as content lets them write the event); a plan type's and a task's, holders of Content.Edit or
 * Plans.Edit.
 */
export async function assertMayManage(deps: MessagingDeps, auth: Claims, entityType: string, entityId: string | null): Promise<void> {
  if (hasPermission(auth, 'Content.Edit', 'MessagingApi')) return;
  if (entityType !== 'event') {
    if (hasPermission(auth, 'Plans.Edit', 'MessagingApi')) return;
    throw unauthorized('Missing permission: Content.Edit or Plans.Edit');
  }
  if (!auth.leaderGroupIds.length || !entityId) throw unauthorized('Missing permission: Content.Edit or leader of the event\'s group');
  const event = await eventOf(deps, auth.churchId, entityId);
  if (!event.groupId || !auth.leaderGroupIds.includes(event.groupId)) throw unauthorized('Missing permission: Content.Edit or leader of the event\'s group');
}

/** The entity a reminder is about exists in the church (404 otherwise): asked of its owner. */
export async function assertEntity(deps: MessagingDeps, churchId: string, entityType: string, id: string, scoped: boolean): Promise<void> {
  if (entityType === 'event') await eventOf(deps, churchId, id);
  else if (entityType === 'plan' && scoped) {
    const today = new Date().toISOString().slice(0, 10);
    if (!(await planTypePlans(deps, churchId, id, today, today)).planType) throw notFound('Plan type');
  } else if (entityType === 'plan') {
    if (!(await planPeople(deps, churchId, id)).plan) throw notFound('Plan');
  } else if (!(await loadTask(deps, churchId, id))) throw notFound('Task');
}

type DefinitionTarget = Pick<DefinitionRow, 'churchId' | 'entityType' | 'entityId' | 'scopeId'>;

/** The subjects a definition covers whose occurrences may fall in `[from, to)` (a plan type's: each of its plans). */
async function subjectsOf(deps: MessagingDeps, def: DefinitionTarget, tz: string, from: Date, to: Date): Promise<Subject[]> {
  if (def.entityType === 'event' && def.entityId) {
    const { event, starts } = await eventOccurrences(deps, def.churchId, def.entityId, from, to);
    return event ? [eventSubject(event, starts, tz)] : [];
  }
  if (def.entityType === 'plan' && def.scopeId) {
    const { plans } = await planTypePlans(deps, def.churchId, def.scopeId, localDay(from, tz), localDay(to, tz));
    return plans.map((p) => planSubject(p, tz));
  }
  if (def.entityType === 'plan' && def.entityId) {
    const { plan, personIds } = await planPeople(deps, def.churchId, def.entityId);
    return plan ? [{ ...planSubject(plan, tz), assigned: personIds }] : [];
  }
  if (def.entityType === 'task' && def.entityId) {
    const found = await loadTask(deps, def.churchId, def.entityId);
    return found ? [taskSubject(found, tz)] : [];
  }
  return [];
}

/** Offsets written as the apps keep them (`"1440,0"`); anything unusable is left out. */
export function parseOffsets(csv: string | null | undefined): number[] {
  const list = (csv ?? '')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n >= 0 && n <= MAX_OFFSET_MINUTES);
  return [...new Set(list)];
}

/** The time zone a definition keeps: its own, else the church's. */
export async function zoneOf(deps: MessagingDeps, def: Pick<DefinitionRow, 'churchId' | 'timeZone'>): Promise<string> {
  return def.timeZone || (await churchTimeZone(deps, def.churchId));
}

/** When each offset of an occurrence goes out, kept if it is after `now`, within `until` and of use. */
function firesOf(occ: Occurrence, offsets: number[], sendLocalTime: string, tz: string, now: Date, until: Date) {
  return offsets
    .map((offsetMinutes) => ({ offsetMinutes, fireAt: zonedInstant(occ.day, sendLocalTime, tz, offsetMinutes) }))
    .filter(({ fireAt }) => fireAt > now && fireAt <= until && fireAt < occ.expiresAt);
}

/** The window of occurrences whose reminders may fall in the next `HORIZON_DAYS`. */
const windowFrom = (now: Date, offsets: number[]) => new Date(now.getTime() + (HORIZON_DAYS + 1) * DAY_MS + Math.max(0, ...offsets) * 60_000);

/** A definition's reminders of the next `HORIZON_DAYS`, from its entity's owner. */
export async function planReminders(deps: MessagingDeps, def: DefinitionRow, now: Date): Promise<PlannedOccurrence[]> {
  if (!def.enabled) return [];
  const tz = await zoneOf(deps, def);
  const offsets = parseOffsets(def.offsets);
  const until = new Date(now.getTime() + HORIZON_DAYS * DAY_MS);
  const out: PlannedOccurrence[] = [];
  for (const subject of await subjectsOf(deps, def, tz, now, windowFrom(now, offsets))) {
    for (const occ of subject.occurrences) {
      for (const f of firesOf(occ, offsets, def.sendLocalTime, tz, now, until)) out.push({ entityId: subject.entityId, occurrence: occ.occurrence, expiresAt: occ.expiresAt, ...f });
    }
  }
  return out;
}

/** The people an event's reminder goes to by mode, and how many of its attendees have no person record. */
async function eventPeople(deps: MessagingDeps, churchId: string, event: ReminderEvent, mode: string): Promise<{ personIds: string[]; scope: 'group' | 'registrants'; unlinked: number }> {
  const registrants = mode === 'registrants' || mode === 'registrantsHoh' || (mode === 'auto' && event.registrationEnabled);
  if (!registrants) {
    const members = event.groupId ? await contacts(deps, churchId, { groupId: event.groupId }) : [];
    return { personIds: [...new Set(members.map((m) => m.id))], scope: 'group', unlinked: 0 };
  }
  const regs = await eventRegistrations(deps, churchId, event.id);
  if (mode === 'registrantsHoh') return { personIds: [...new Set(regs.registrants)], scope: 'registrants', unlinked: 0 };
  const linked = regs.attendees.flatMap((a) => (a.personId ? [a.personId] : []));
  return { personIds: [...new Set(linked)], scope: 'registrants', unlinked: regs.attendees.length - linked.length };
}

/** The people a subject's reminder goes to. */
async function recipientsOf(deps: MessagingDeps, def: DefinitionRow, subject: Subject): Promise<string[]> {
  if (subject.event) return (await eventPeople(deps, def.churchId, subject.event, def.recipientMode || 'auto')).personIds;
  if (subject.plan) return [...new Set(subject.assigned ?? (await planPeople(deps, def.churchId, subject.plan.id)).personIds)];
  const t = subject.task!;
  if (t.assignedToType === 'person' && t.assignedToId) return [t.assignedToId];
  if (t.assignedToType === 'group' && t.assignedToId) return (await contacts(deps, def.churchId, { groupId: t.assignedToId })).map((m) => m.id);
  return [];
}

const dayFormat = (tz: string) => new Intl.DateTimeFormat('en-US', { timeZone: tz, weekday: 'long', month: 'long', day: 'numeric' });
const startFormat = (tz: string) => new Intl.DateTimeFormat('en-US', { timeZone: tz, weekday: 'long', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit' });

/** The reminder's text: the definition's own with its merge field filled in, or one naming the thing and its day. */
export function reminderText(def: Pick<DefinitionRow, 'entityType' | 'message'>, subject: Pick<Subject, 'title'>, occ: Occurrence, tz: string): string {
  const field = def.entityType === 'event' ? 'eventTitle' : def.entityType === 'plan' ? 'planName' : 'taskTitle';
  if (def.message) return def.message.replaceAll(`{{${field}}}`, subject.title).replaceAll('{{title}}', subject.title);
  // the day of a plan or task is a calendar day: written at noon UTC so no zone moves it
  const day = dayFormat('UTC').format(new Date(`${occ.day}T12:00:00Z`));
  if (def.entityType === 'event') return `Reminder: ${subject.title} starts ${occ.startsAt ? startFormat(tz).format(occ.startsAt) : day}`;
  if (def.entityType === 'plan') return `Reminder: you're serving at ${subject.title} on ${day}`;
  return `Reminder: "${subject.title}" is due ${day}`;
}

/** The channels of a definition as delivery options: push or not, mail now or not at all. */
export function deliveryOf(channels: string): DeliveryOptions {
  const list = channels.split(',').map((c) => c.trim());
  return { push: list.includes('push'), email: list.includes('email') ? 'now' : 'never', title: 'Reminder' };
}

/**
 * The occurrence a queued reminder is for, as its owner has it now: `null` when the entity went, the occurrence
 * moved (another start or day) or a task was closed; else the subject with its recipients.
 */
export async function currentSubject(deps: MessagingDeps, def: DefinitionRow, occ: OccurrenceRow, tz: string): Promise<{ subject: Subject; occurrence: Occurrence; personIds: string[] } | null> {
  const target: DefinitionTarget = { churchId: def.churchId, entityType: def.entityType, entityId: occ.entityId, scopeId: null };
  const at = occ.entityType === 'event' ? new Date(occ.occurrence) : endOfDay(occ.occurrence, tz);
  const subjects = await subjectsOf(deps, target, tz, new Date(at.getTime() - 2 * DAY_MS), new Date(at.getTime() + DAY_MS));
  const subject = subjects.find((s) => s.entityId === occ.entityId);
  const occurrence = subject?.occurrences.find((o) => o.occurrence === occ.occurrence);
  if (!subject || !occurrence) return null;
  return { subject, occurrence, personIds: await recipientsOf(deps, def, subject) };
}

/** B1Admin's preview of an event's reminder: how many people, and when the next ones go. */
export async function previewEvent(
  deps: MessagingDeps,
  churchId: string,
  eventId: string,
  q: { recipientMode?: string; offsets?: string; sendLocalTime?: string; timeZone?: string },
  now = new Date(),
) {
  const recipientMode = recipientModeFor('event', q.recipientMode || 'auto');
  const tz = q.timeZone || (await churchTimeZone(deps, churchId));
  const offsets = parseOffsets(q.offsets ?? '1440');
  const { event, starts } = await eventOccurrences(deps, churchId, eventId, now, windowFrom(now, offsets));
  if (!event) return { recipientMode, recipientCount: 0, scope: 'none' as const, unlinkedAttendeeCount: 0, nextFires: [] };
  const people = await eventPeople(deps, churchId, event, recipientMode);
  const until = new Date(now.getTime() + HORIZON_DAYS * DAY_MS);
  const nextFires = eventOccurrencesOf(starts, tz)
    .flatMap((occ) => firesOf(occ, offsets, q.sendLocalTime ?? '09:00:00', tz, now, until).map((f) => f.fireAt))
    .sort((a, b) => a.getTime() - b.getTime())
    .slice(0, 5)
    .map((d) => d.toISOString());
  return { recipientMode, recipientCount: people.personIds.length, scope: people.scope, unlinkedAttendeeCount: people.unlinked, nextFires };
}

/**
 * Saves the one reminder of an entity (an event, a plan, a task) or a scope (a plan type's, for each of its plans),
 * for a caller who may manage it, of an entity that exists; its sends are planned (`expandReminders`) and the change
 * reported in the same transaction.
 */
export async function saveReminder(deps: MessagingDeps, actor: Actor, target: Target, body: SaveReminder): Promise<DefinitionRow> {
  const { churchId } = actor;
  await assertMayManage(deps, actor, target.entityType, target.entityId ?? null);
  await assertEntity(deps, churchId, target.entityType, (target.entityId ?? target.scopeId)!, !!target.scopeId);
  const values = {
    offsets: body.offsets,
    sendLocalTime: body.sendLocalTime,
    timeZone: body.timeZone ?? null,
    message: body.message ?? null,
    channels: body.channels,
    recipientMode: recipientModeFor(target.entityType, body.recipientMode),
    enabled: body.enabled,
  };
  return deps.db.transaction(async (tx) => {
    const { row, before } = await upsertDefinition(tx, churchId, target, values);
    await deps.queue.enqueue(expandReminders, { churchId, definitionId: row.id }, { tx });
    await reportChanges(deps, [{ churchId, entityType: 'reminder', entityId: row.id, action: before ? 'updated' : 'created', before, after: row }], { req: actor, tx });
    return row;
  });
}

/** Removes a reminder (404 for another church's; 401 for a caller who may not manage it) and its sends not yet made. */
export async function removeReminder(deps: MessagingDeps, actor: Actor, id: string): Promise<void> {
  const { churchId } = actor;
  const def = await definitionById(deps.db, churchId, id);
  if (!def) throw notFound('Reminder');
  await assertMayManage(deps, actor, def.entityType, def.entityId);
  await deps.db.transaction(async (tx) => {
    const gone = await deleteDefinition(tx, churchId, def.id);
    if (gone) await reportChanges(deps, [{ churchId, entityType: 'reminder', entityId: gone.id, action: 'destroyed', before: gone }], { req: actor, tx });
  });
}
