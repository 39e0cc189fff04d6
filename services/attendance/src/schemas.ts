import { z } from 'zod';
import { exactShape, Id, IsoDate, OptionalText } from '@church/common';

// What the attendance API accepts and answers. Response schemas list every field that leaves the service.
// Save bodies strip unknown fields rather than refuse them: clients post back records as they read them
// (with `churchId` and joined names), and the church always comes from the token.

const Name = z.string().trim().min(1, 'is required').max(255);
/** Dates leave as ISO strings (the serializer stringifies `Date`). */
const Stamp = z.date();
/** A date already written as ISO text (`toISOString`), for an answer written with `JSON.stringify` (`exactShape`). */
const IsoStamp = z.iso.datetime();

/** A time zone the runtime knows (IANA names and their aliases: `America/Chicago`, `UTC`). */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const Campus = z.object({
  id: z.string(),
  churchId: z.string(),
  name: z.string(),
  address1: z.string().nullish(),
  address2: z.string().nullish(),
  city: z.string().nullish(),
  state: z.string().nullish(),
  zip: z.string().nullish(),
  timezone: z.string().nullish(),
  website: z.string().nullish(),
});
/**
 * A campus as the spec's editor and the apps' (`CampusEdit`) send it: the apps post back the whole record they
 * read (`churchId`, `importKey` and nulls included) and `""` for an empty field; `timezone: ""` is none (null).
 */
export const CampusSave = z.object({
  id: Id.optional(),
  name: Name,
  address1: OptionalText,
  address2: OptionalText,
  city: OptionalText,
  state: OptionalText,
  zip: OptionalText,
  timezone: z.string().trim().max(100).refine(isTimeZone, 'must be a time zone such as America/Chicago').nullish(),
  website: z.string().trim().max(2000).nullish(),
});
/** What anyone may read of a church's campuses (the member site's group filters): the name only. */
export const PublicCampus = z.object({ id: z.string(), name: z.string() });

const CampusRef = z.object({ id: z.string(), name: z.string() });
export const Service = z.object({
  id: z.string(),
  churchId: z.string(),
  campusId: z.string().nullable(),
  name: z.string(),
  campus: CampusRef.nullable().optional(),
});
export const ServiceSave = z.object({ id: Id.optional(), campusId: Id.nullish(), name: Name });

/** A group linked to a service time, as check-in shows it (the group itself lives in membership). */
export const LinkedGroup = z.object({
  id: z.string(),
  name: z.string(),
  categoryName: z.string().nullable(),
  slug: z.string(),
  trackAttendance: z.boolean(),
  parentPickup: z.boolean(),
  printNametag: z.boolean(),
});

export type LinkedGroupData = z.infer<typeof LinkedGroup>;

export const ServiceTime = z.object({
  id: z.string(),
  serviceId: z.string(),
  name: z.string(),
  /** "Campus - Service - Time", on the search */
  longName: z.string().optional(),
  /** with `?include=groups`: the groups linked through group service times, with membership's data */
  groups: z.array(LinkedGroup).optional(),
});
export const ServiceTimeSave = z.object({ id: Id.optional(), serviceId: Id, name: Name });

export const GroupServiceTime = z.object({
  id: z.string(),
  groupId: z.string(),
  serviceTimeId: z.string(),
  /** with `?groupId=`: the service time named "Campus - Service - Time" */
  serviceTime: z.object({ id: z.string(), name: z.string(), serviceId: z.string() }).optional(),
});
export const GroupServiceTimeSave = z.object({ id: Id.optional(), groupId: Id, serviceTimeId: Id });

export const Session = z.object({
  id: z.string(),
  groupId: z.string(),
  serviceTimeId: z.string().nullable(),
  sessionDate: Stamp,
});
export const SessionListItem = Session.extend({
  serviceTimeName: z.string().nullable().optional(),
  /** "01/07/2024 - 9:00 AM" (or the date alone without a service time): a date the apps recognise */
  displayName: z.string().optional(),
});
export const SessionSave = z.object({ id: Id.optional(), groupId: Id.optional(), serviceTimeId: Id.nullish(), sessionDate: IsoDate.optional() });

export const VisitSession = z.object({
  id: z.string(),
  visitId: z.string(),
  sessionId: z.string(),
  personId: z.string().optional(),
  session: Session.optional(),
  /** the visit's id and person, on lists and reads: where the apps look for who attended (`visit.personId`) */
  visit: z.object({ id: z.string(), personId: z.string() }).optional(),
});
export const VisitSessionSave = z.object({ id: Id.optional(), visitId: Id.optional(), sessionId: Id.optional() });

export const Visit = z.object({
  id: z.string(),
  personId: z.string(),
  serviceId: z.string().nullable(),
  visitDate: Stamp,
  checkinTime: Stamp.nullable(),
  visitSessions: z.array(VisitSession),
});
export const VisitSave = z.object({
  id: Id.optional(),
  personId: Id.optional(),
  serviceId: Id.nullish(),
  visitDate: IsoDate.optional(),
  checkinTime: IsoDate.nullish(),
});

export const CheckinItem = z.object({
  personId: Id,
  visitSessions: z
    .array(z.object({ session: z.object({ serviceTimeId: Id, groupId: Id }) }))
    .max(50)
    .default([]),
});
/**
 * A check-in's answer: its visits as `Visit` answers them, built field by field in this order (`submitCheckin`)
 * and written with JSON.stringify (exactShape). Its dates are the same ISO text `Stamp` leaves as, formatted
 * once per submission (every visit of it has today's date and the submission's time) rather than once per
 * visit and visit session.
 */
export const CheckinResult = exactShape(
  z.object({
    securityCode: z.string(),
    visits: z.array(
      Visit.extend({
        serviceId: z.string(),
        visitDate: IsoStamp,
        checkinTime: IsoStamp,
        visitSessions: z.array(VisitSession.omit({ personId: true, visit: true }).extend({ session: Session.extend({ serviceTimeId: z.string(), sessionDate: IsoStamp }) })),
      }),
    ),
  }),
);

export const LogBody = z.object({ personId: Id, visitSessions: z.array(z.object({ sessionId: Id })).min(1).max(50) });

export const DownloadRow = z.object({
  id: z.string(),
  personId: z.string(),
  visitId: z.string(),
  sessionId: z.string(),
  /** ISO text as a `Stamp` leaves, formatted once per download rather than once per row */
  sessionDate: z.string(),
  personName: z.string(),
  status: z.enum(['present', 'absent']),
});

/** The sheet, built field by field in this order (sessionDownload): written with JSON.stringify (exactShape). */
export const DownloadRows = exactShape(z.array(DownloadRow));

const Ref = z.object({ id: z.string(), name: z.string() }).nullable();
/** One attended session of a visit (or a visit without sessions), with the places it happened at. */
export const AttendanceRecord = z.object({
  visitId: z.string(),
  personId: z.string(),
  visitDate: Stamp,
  sessionId: z.string().nullable(),
  groupId: z.string().nullable(),
  campus: Ref,
  service: Ref,
  serviceTime: Ref,
});
/**
 * `week`: the Sunday starting the week, a date (`2026-11-22`) as the spec's trend row says; `visits` is `count`
 * again, under the name the apps read (B1Admin's group health chart)
 */
export const TrendRow = z.object({ week: z.string(), count: z.number().int(), visits: z.number().int() });
export const GroupAttendanceRow = z.object({
  serviceId: z.string(),
  serviceName: z.string(),
  serviceTimeId: z.string(),
  serviceTimeName: z.string(),
  groupId: z.string(),
  sessionId: z.string(),
  sessionDate: Stamp,
  personId: z.string(),
});

/** A group's sessions of the last weeks (B1Admin's groups health screen). */
export const GroupSummaryRow = z.object({
  groupId: z.string(),
  sessionCount: z.number().int(),
  totalVisits: z.number().int(),
  /** visits per session, one decimal */
  averageAttendance: z.number(),
  /** the latest session's date, ISO text */
  lastSessionDate: z.string(),
});

/** The public place tree: campuses → services → service times. */
const TreeService = z.object({ id: z.string(), name: z.string(), serviceTimes: z.array(z.object({ id: z.string(), name: z.string() })) });
export const TreeCampus = z.object({ id: z.string(), name: z.string(), services: z.array(TreeService) });
/**
 * One row of the place tree as the apps read it (`/attendancerecords/tree`): a service time with its service and
 * campus, and the time's linked groups; a service without times is a row without `serviceTime`, a campus without
 * services a row with only `campus`.
 */
export const TreeRow = z.object({
  campus: CampusRef.nullable(),
  service: z.object({ id: z.string(), name: z.string(), campusId: z.string().nullable() }).optional(),
  serviceTime: z.object({ id: z.string(), name: z.string(), serviceId: z.string(), groups: z.array(LinkedGroup) }).optional(),
});

export type PlaceRow = z.output<typeof TreeRow>;

export const Streaks = z.object({
  personId: z.string(),
  currentStreak: z.number().int(),
  longestStreak: z.number().int(),
  /** the Sunday starting the last attended week, or null */
  lastAttended: Stamp.nullable(),
});

/** Content of a label template: the editor's blocks, written as a JSON array (what kiosks parse and print). */
function isJsonArray(text: string): boolean {
  try {
    return Array.isArray(JSON.parse(text));
  } catch {
    return false;
  }
}

/** Label sizes in inches, as stored (numeric(5,2)). */
const Inches = z.number().positive('must be more than 0').max(99.99, 'must be at most 99.99 inches');

export const LabelTemplate = z.object({
  id: z.string(),
  churchId: z.string(),
  name: z.string(),
  /** `nametag` or `pickup` */
  labelType: z.string(),
  width: z.number(),
  height: z.number(),
  isDefault: z.boolean(),
  /** a JSON array of the label's blocks (text, fields, barcodes, boxes), as the label editor writes it */
  content: z.string(),
});
/**
 * A label template as the label editor and the list's "set default" send it: the whole record back (`churchId`,
 * dates and unknown keys are dropped). A new one needs `name`, `labelType`, `width` and `height`; `content`
 * defaults to no blocks (`[]`).
 */
export const LabelTemplateSave = z.object({
  id: Id.optional(),
  name: Name.optional(),
  labelType: z.enum(['nametag', 'pickup'], { message: 'must be nametag or pickup' }).optional(),
  width: Inches.optional(),
  height: Inches.optional(),
  isDefault: z.boolean().optional(),
  content: z.string().max(200_000, 'must be at most 200,000 characters').refine(isJsonArray, 'must be a JSON array of label blocks').optional(),
});

/**
 * An optional id in a query string; clients send `?campusId=` (empty) for "no filter", and the apps `0`
 * (`?campusId=0&serviceId=0&serviceTimeId=0&groupId=…`, the open-source API's "any").
 */
export const QueryId = z.preprocess((v) => (v === '' || v === '0' ? undefined : v), Id.optional());

/** Optional id filters of the report routes; an absent filter means "all". */
export const PlaceFilters = z.object({ campusId: QueryId, serviceId: QueryId, serviceTimeId: QueryId, groupId: QueryId });
