import { z } from 'zod';
import { Id, IsoDate } from '@church/common';
import { Event } from './website';
import { Stamp, Text } from './website-fields';

// Rooms, resources, blockouts, templates, bookings, requests and RSVPs: what the calendar side accepts and answers.

/** Optional text; the apps send `''` for none. */
const OptText = (max = 1000) => Text(max).nullish().transform((s) => (s === '' ? null : s));
const Minutes = z.number().int().min(0).max(7 * 24 * 60);

export const Room = z.object({
  id: z.string(),
  churchId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  capacity: z.number().nullable(),
  approvalGroupId: z.string().nullable(),
});
export const RoomSave = z.object({
  id: Id.optional(),
  name: Text(200).min(1, 'is required').optional(),
  description: OptText(2000),
  capacity: z.number().int().min(0).max(1_000_000).nullish(),
  approvalGroupId: Id.nullish(),
});

export const Resource = Room.omit({ capacity: true }).extend({ quantity: z.number() });
export const ResourceSave = RoomSave.omit({ capacity: true }).extend({ quantity: z.number().int().min(1).max(1_000_000).optional() });

export const CalendarBlockout = z.object({
  id: z.string(),
  churchId: z.string(),
  roomId: z.string().nullable(),
  resourceId: z.string().nullable(),
  startTime: Stamp,
  endTime: Stamp,
  reason: z.string().nullable(),
});
export const CalendarBlockoutSave = z.object({
  id: Id.optional(),
  roomId: Id.nullish(),
  resourceId: Id.nullish(),
  startTime: IsoDate.optional(),
  endTime: IsoDate.optional(),
  reason: OptText(500),
});

export const EventTemplate = z.object({
  id: z.string(),
  churchId: z.string(),
  name: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  durationMinutes: z.number().nullable(),
  visibility: z.string().nullable(),
  roomIds: z.string().nullable(),
  resourcesJson: z.string().nullable(),
});
const ResourcesJson = z.array(z.object({ resourceId: Id, quantity: z.number().int().min(1).max(1_000_000).optional() })).max(200);
export const EventTemplateSave = z.object({
  id: Id.optional(),
  name: Text(200).min(1, 'is required').optional(),
  title: OptText(500),
  description: OptText(20_000),
  durationMinutes: z.number().int().min(0).max(60 * 24 * 31).nullish(),
  visibility: z.enum(['public', 'private']).nullish(),
  /** comma-separated room ids, as TemplateEdit writes them */
  roomIds: Text(20_000)
    .refine((s) => s.split(',').every((x) => !x.trim() || Id.safeParse(x.trim()).success), 'must be comma-separated UUIDs')
    .nullish(),
  /** JSON text of `[{resourceId, quantity}]`, as TemplateEdit writes it */
  resourcesJson: Text(20_000)
    .refine((s) => {
      try {
        return !s || ResourcesJson.safeParse(JSON.parse(s)).success;
      } catch {
        return false;
      }
    }, 'must be JSON text of [{resourceId, quantity}]')
    .nullish(),
});

// ---- bookings

export const EventBooking = z.object({
  id: z.string(),
  churchId: z.string(),
  eventId: z.string(),
  roomId: z.string().nullable(),
  resourceId: z.string().nullable(),
  quantity: z.number(),
  status: z.string(),
  setupMinutes: z.number().nullable(),
  teardownMinutes: z.number().nullable(),
  startTime: Stamp.nullable(),
  endTime: Stamp.nullable(),
  requestedBy: z.string().nullable(),
  requestedDate: Stamp.nullable(),
  resolvedBy: z.string().nullable(),
  resolvedDate: Stamp.nullable(),
});
export const EventBookingSave = z.object({
  id: Id.optional(),
  eventId: Id.optional(),
  roomId: Id.nullish(),
  resourceId: Id.nullish(),
  quantity: z.number().int().min(1).max(1_000_000).nullish(),
  setupMinutes: Minutes.nullish(),
  teardownMinutes: Minutes.nullish(),
  startTime: IsoDate.nullish(),
  endTime: IsoDate.nullish(),
});
const Named = { roomName: z.string().nullable(), resourceName: z.string().nullable() };
const OfEvent = { eventTitle: z.string(), eventStart: Stamp, eventEnd: Stamp, eventRecurrenceRule: z.string().nullable() };
export const NamedBooking = EventBooking.extend(Named);
export const CalendarBooking = EventBooking.extend({ ...Named, ...OfEvent });

export const Conflict = z.object({
  type: z.enum(['room', 'resource', 'blockout']),
  roomId: z.string().optional(),
  resourceId: z.string().optional(),
  blockoutId: z.string().optional(),
  conflictingEventId: z.string().optional(),
  conflictingEventTitle: z.string().optional(),
  date: Stamp,
  message: z.string(),
});
export const PendingBooking = CalendarBooking.extend({
  roomApprovalGroupId: z.string().nullable(),
  resourceApprovalGroupId: z.string().nullable(),
  conflicts: z.array(Conflict),
});
export const CalendarQuery = z.object({ startTime: IsoDate.optional(), endTime: IsoDate.optional(), roomId: Id.optional(), resourceId: Id.optional() });
/** A booking's or a request's decision. */
export const ActionParams = z.object({ id: Id, action: z.enum(['approve', 'reject']) });
/** The body of a booking's decision, which is not read. */
export const UnreadBody = z.unknown();

const Wanted = {
  roomIds: z.array(Id).max(100).nullish(),
  resources: z.array(z.object({ resourceId: Id, quantity: z.number().int().min(1).max(1_000_000).nullish() })).max(100).nullish(),
};
export const ConflictsBody = z.object({
  eventId: Id.nullish(),
  start: IsoDate,
  end: IsoDate,
  recurrenceRule: OptText(1000),
  setupMinutes: Minutes.nullish(),
  teardownMinutes: Minutes.nullish(),
  startTime: IsoDate.nullish(),
  endTime: IsoDate.nullish(),
  ...Wanted,
});

export const EventRequest = z.object({
  groupId: Id.nullish(),
  title: Text(500).min(1, 'is required'),
  description: OptText(20_000),
  allDay: z.boolean().nullish(),
  start: IsoDate,
  end: IsoDate,
  recurrenceRule: OptText(1000),
  ...Wanted,
});
/** A member's request as made: the event with the bookings it asked for. */
export const RequestAnswer = z.object({ event: Event, bookings: z.array(EventBooking) });
/** One of the caller's requests with its bookings and their statuses. */
export const RequestWithBookings = Event.extend({ bookings: z.array(NamedBooking) });
/** Staff may file an approved request under a group (ApprovalsPage sends nothing). */
export const ApprovalBody = z.object({ groupId: Id.nullish() }).nullish();

export const IcalImport = z.object({
  groupId: Id,
  /** the calendar's text (ImportIcsModal reads a file or takes it pasted) ... */
  ics: z.string().max(5_000_000).nullish(),
  /** ... or the address of a feed to read */
  url: z.url({ protocol: /^https?$/, message: 'must be an http(s) address' }).max(2000).nullish(),
  visibility: z.enum(['public', 'private']).nullish(),
});

// ---- RSVPs

export const RsvpResponse = z.enum(['yes', 'no', 'maybe']);
export const Rsvp = z.object({ id: z.string(), churchId: z.string(), eventId: z.string(), personId: z.string(), occurrenceStart: Stamp, response: z.string() });
export const RsvpBody = z.object({ occurrenceStart: IsoDate, response: RsvpResponse });
export const OccurrenceQuery = z.object({ occurrenceStart: IsoDate });
export const RosterEntry = z.object({ id: z.string(), personId: z.string(), response: z.string(), occurrenceStart: Stamp });
export const RsvpWindowQuery = z.object({ from: IsoDate.optional(), to: IsoDate.optional() });
export const RsvpCounts = z.object({
  eventId: z.string(),
  occurrenceStart: Stamp,
  yes: z.number(),
  no: z.number(),
  maybe: z.number(),
  mine: RsvpResponse.nullable(),
});
