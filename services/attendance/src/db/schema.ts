import { sql } from 'drizzle-orm';
import { boolean, date, index, integer, numeric, pgTable, smallint, text, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id, removed, timestamps } from '@church/common';

// The attendance module's tables. Every index that serves a query leads with church_id; the comments on the
// visit indexes name the queries they serve, because visits are the table that grows without bound.

/** Campuses (soft delete: services and attendance history keep referring to them). */
export const campuses = pgTable(
  'campuses',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    address1: text('address1'),
    address2: text('address2'),
    city: text('city'),
    state: text('state'),
    zip: text('zip'),
    /** IANA time zone of the campus (`America/Chicago`), as the apps' campus editor sets it; null: none */
    timezone: text('timezone'),
    website: text('website'),
    removed: removed(),
    ...timestamps(),
  },
  (t) => [index('campuses_church_name_idx').on(t.churchId, t.name)],
);

/** Services (a weekly gathering at a campus). */
export const services = pgTable(
  'services',
  {
    id: id(),
    churchId: churchId(),
    campusId: uuid('campus_id'),
    name: text('name').notNull(),
    removed: removed(),
    ...timestamps(),
  },
  (t) => [index('services_church_campus_idx').on(t.churchId, t.campusId)],
);

/** Service times (the 9:00 and the 11:00 of a service). */
export const serviceTimes = pgTable(
  'service_times',
  {
    id: id(),
    churchId: churchId(),
    serviceId: uuid('service_id').notNull(),
    name: text('name').notNull(),
    removed: removed(),
    ...timestamps(),
  },
  (t) => [index('service_times_church_service_idx').on(t.churchId, t.serviceId)],
);

/** Links a group (owned by membership, referenced by id) to a service time it meets at. */
export const groupServiceTimes = pgTable(
  'group_service_times',
  {
    id: id(),
    churchId: churchId(),
    groupId: uuid('group_id').notNull(),
    serviceTimeId: uuid('service_time_id').notNull(),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('group_service_times_group_uq').on(t.churchId, t.groupId, t.serviceTimeId),
    index('group_service_times_time_idx').on(t.churchId, t.serviceTimeId),
  ],
);

/** A session is one meeting of a group: (group, service time, date). */
export const sessions = pgTable(
  'sessions',
  {
    id: id(),
    churchId: churchId(),
    groupId: uuid('group_id').notNull(),
    serviceTimeId: uuid('service_time_id'),
    sessionDate: at('session_date').notNull(),
    ...timestamps(),
  },
  (t) => [
    // check-in finds or creates the session of (group, service time, today) under concurrent kiosks
    uniqueIndex('sessions_group_time_date_uq').on(t.churchId, t.groupId, t.serviceTimeId, t.sessionDate),
    index('sessions_church_time_date_idx').on(t.churchId, t.serviceTimeId, t.sessionDate),
    // sessions of a period: group attendance of a week, session lists, and the groups summary (index-only: it reads
    // a session's group and id, then its visit sessions through visit_sessions_session_idx)
    index('sessions_church_date_group_idx').on(t.churchId, t.sessionDate, t.groupId, t.id),
  ],
);

/**
 * A visit is a person at a service on a date. `service_id` is stored on the visit (rather than derived through
 * its sessions) so the trend and the check-in read one table; `visit_date` is a calendar date (UTC reckoning).
 */
export const visits = pgTable(
  'visits',
  {
    id: id(),
    churchId: churchId(),
    personId: uuid('person_id').notNull(),
    serviceId: uuid('service_id'),
    visitDate: date('visit_date', { mode: 'date' }).notNull(),
    checkinTime: at('checkin_time'),
    addedBy: uuid('added_by'),
    ...timestamps(),
  },
  (t) => [
    // one visit per person, service and date; serves ?personId=, streaks and the check-in's last-logged date
    uniqueIndex('visits_person_date_service_uq').on(t.churchId, t.personId, t.visitDate, t.serviceId),
    // the unfiltered trend and date-range searches
    index('visits_church_date_idx').on(t.churchId, t.visitDate),
    // trend / search by service (and by campus through its services), check-in by service and date
    index('visits_church_service_date_idx').on(t.churchId, t.serviceId, t.visitDate),
  ],
);

/** Joins a visit to the sessions the person attended. */
export const visitSessions = pgTable(
  'visit_sessions',
  {
    id: id(),
    churchId: churchId(),
    visitId: uuid('visit_id').notNull(),
    sessionId: uuid('session_id').notNull(),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('visit_sessions_visit_session_uq').on(t.churchId, t.visitId, t.sessionId),
    // a session's attendance, and the trend's group / service-time filters (session → visits)
    index('visit_sessions_session_idx').on(t.churchId, t.sessionId, t.visitId),
  ],
);

/**
 * Visits per (church, service, date): the weekly trend sums these few rows (a handful per service and day with
 * visits) instead of counting a church's whole history. Kept by triggers on `visits` (migrations 0002 to 0004:
 * statement triggers for inserts and deletes, a row trigger for updates that move a visit), so every writer — routes, seeds, tests inserting rows directly — moves the counts in the same
 * transaction and they always equal the visits. A key's count is the sum of its rows: each database connection
 * adds to a slot of its own (`slot`, from the backend's process id), so concurrent check-ins at one service on
 * one day do not queue on one counter row until each other's commit. A count that went back to zero stays.
 */
export const visitCounts = pgTable(
  'visit_counts',
  {
    churchId: churchId(),
    serviceId: uuid('service_id'),
    visitDate: date('visit_date', { mode: 'date' }).notNull(),
    /** which writer's row of the key (0 to 31); readers sum over it */
    slot: smallint('slot').notNull().default(0),
    visits: integer('visits').notNull(),
  },
  // the trend: a church's rows, or one service's (campus: its few services); the triggers' upsert key
  (t) => [unique('visit_counts_uq').on(t.churchId, t.serviceId, t.visitDate, t.slot).nullsNotDistinct()],
);

/**
 * Check-in label templates (a name tag or a pickup slip): the size in inches and the layout the staff app's label
 * editor writes (`content`, a JSON array of blocks), which kiosks print. At most one default per label type.
 */
export const labelTemplates = pgTable(
  'label_templates',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    labelType: text('label_type').notNull(),
    width: numeric('width', { precision: 5, scale: 2, mode: 'number' }).notNull(),
    height: numeric('height', { precision: 5, scale: 2, mode: 'number' }).notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    content: text('content').notNull().default('[]'),
    ...timestamps(),
  },
  (t) => [
    // the church's list, by name
    index('label_templates_church_name_idx').on(t.churchId, t.name),
    // one default per type: the save clears the others first; the index keeps it so under concurrent saves
    uniqueIndex('label_templates_default_uq').on(t.churchId, t.labelType).where(sql`${t.isDefault}`),
  ],
);
