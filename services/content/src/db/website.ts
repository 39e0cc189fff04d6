// The website half's tables (pages, sections, elements, blocks, links, styles, history, posts, redirects,
// settings, events and calendars). Every index that serves a query leads with church_id.
import { sql } from 'drizzle-orm';
import { boolean, check, doublePrecision, index, integer, jsonb, pgTable, text, type AnyPgColumn, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id, timestamps } from '@church/common';

// The public page tree is served from a kept answer per church and data version (snapshots.ts); the tree
// tables raise the version through the shared trigger (migration `data_versions`). The website half owns
// this table; the media half does not create it.
export { dataVersions } from '@church/common/tables';

type Json = Record<string, unknown>;

/**
 * A church's website is its main site (`site_id` null) or one of its additional sites (membership's `sites`,
 * each on its own sub-domain): pages, blocks, links and styles belong to one of them. Unique keys read a
 * missing site as the zero id.
 */
const siteKey = (column: AnyPgColumn) => sql`coalesce(${column}, '00000000-0000-0000-0000-000000000000'::uuid)`;

/** A page of the church website; `visibility` `everyone` is public, other values gate it. */
export const pages = pgTable(
  'pages',
  {
    id: id(),
    churchId: churchId(),
    siteId: uuid('site_id'),
    name: text('name'),
    url: text('url').notNull(),
    title: text('title'),
    metaDescription: text('meta_description'),
    layout: text('layout'),
    visibility: text('visibility').notNull().default('everyone'),
    groupIds: jsonb('group_ids').$type<string[]>().notNull().default([]),
    /**
     * The published version (B1Admin's drafts): the public tree as it was published, served by url while set,
     * and the snapshot `discard` restores. Null: nothing of the page is published yet, its working tree is live.
     */
    published: jsonb('published').$type<{ tree: unknown; snapshot: Record<string, unknown> }>(),
    publishedAt: at('published_at'),
    ...timestamps(),
  },
  (t) => [uniqueIndex('pages_church_site_url_idx').on(t.churchId, siteKey(t.siteId), t.url)],
);

/** A reusable section tree: a footer (`footerBlock`), an element group (`elementBlock`) or a section (`sectionBlock`). */
export const blocks = pgTable(
  'blocks',
  {
    id: id(),
    churchId: churchId(),
    siteId: uuid('site_id'),
    name: text('name'),
    blockType: text('block_type').notNull().default('elementBlock'),
    ...timestamps(),
  },
  (t) => [index('blocks_church_type_idx').on(t.churchId, t.blockType)],
);

/** A section of a page or of a block; `targetBlockId` embeds a block's sections in its place. */
export const sections = pgTable(
  'sections',
  {
    id: id(),
    churchId: churchId(),
    pageId: uuid('page_id').references(() => pages.id, { onDelete: 'cascade' }),
    blockId: uuid('block_id').references(() => blocks.id, { onDelete: 'cascade' }),
    zone: text('zone').notNull().default('main'),
    background: text('background'),
    textColor: text('text_color'),
    headingColor: text('heading_color'),
    linkColor: text('link_color'),
    targetBlockId: uuid('target_block_id'),
    sort: doublePrecision('sort').notNull().default(0),
    answers: jsonb('answers').$type<Json>().notNull().default({}),
    styles: jsonb('styles').$type<Json>().notNull().default({}),
    animations: jsonb('animations').$type<Json>().notNull().default({}),
  },
  (t) => [index('sections_church_page_idx').on(t.churchId, t.pageId, t.zone, t.sort), index('sections_church_block_idx').on(t.churchId, t.blockId, t.zone, t.sort)],
);

/** An element of a section; `parentId` holds row columns and carousel slides under their owner. */
export const elements = pgTable(
  'elements',
  {
    id: id(),
    churchId: churchId(),
    sectionId: uuid('section_id')
      .notNull()
      .references(() => sections.id, { onDelete: 'cascade' }),
    blockId: uuid('block_id').references(() => blocks.id, { onDelete: 'cascade' }),
    parentId: uuid('parent_id').references((): AnyPgColumn => elements.id, { onDelete: 'cascade' }),
    elementType: text('element_type').notNull(),
    sort: doublePrecision('sort').notNull().default(0),
    answers: jsonb('answers').$type<Json>().notNull().default({}),
    styles: jsonb('styles').$type<Json>().notNull().default({}),
    animations: jsonb('animations').$type<Json>().notNull().default({}),
  },
  (t) => [index('elements_church_section_idx').on(t.churchId, t.sectionId, t.sort), index('elements_parent_idx').on(t.parentId)],
);

/** Navigation and footer links, by category, with who may see them. */
export const links = pgTable(
  'links',
  {
    id: id(),
    churchId: churchId(),
    siteId: uuid('site_id'),
    category: text('category').notNull().default('website'),
    url: text('url'),
    linkType: text('link_type'),
    linkData: text('link_data'),
    icon: text('icon'),
    text: text('text'),
    sort: doublePrecision('sort').notNull().default(0),
    parentId: uuid('parent_id'),
    visibility: text('visibility').notNull().default('everyone'),
    groupIds: jsonb('group_ids').$type<string[]>().notNull().default([]),
  },
  (t) => [index('links_church_category_idx').on(t.churchId, t.category, t.sort)],
);

/** One set of site styles per church and site. */
export const globalStyles = pgTable(
  'global_styles',
  {
    id: id(),
    churchId: churchId(),
    siteId: uuid('site_id'),
    fonts: text('fonts'),
    palette: text('palette'),
    typography: text('typography'),
    spacing: text('spacing'),
    borderRadius: text('border_radius'),
    navStyles: text('nav_styles'),
    customCss: text('custom_css'),
    customJs: text('custom_js'),
    ...timestamps(),
  },
  (t) => [uniqueIndex('global_styles_church_site_idx').on(t.churchId, siteKey(t.siteId))],
);

/** A snapshot of a page's or a block's tree. */
export const pageHistory = pgTable(
  'page_history',
  {
    id: id(),
    churchId: churchId(),
    pageId: uuid('page_id'),
    blockId: uuid('block_id'),
    snapshot: jsonb('snapshot').$type<Json>().notNull(),
    description: text('description'),
    userId: uuid('user_id'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('page_history_church_page_idx').on(t.churchId, t.pageId, t.createdAt),
    index('page_history_church_block_idx').on(t.churchId, t.blockId, t.createdAt),
    index('page_history_created_idx').on(t.createdAt),
  ],
);

/** Blog posts; published once `publishDate` has passed. */
export const posts = pgTable(
  'posts',
  {
    id: id(),
    churchId: churchId(),
    title: text('title').notNull(),
    slug: text('slug').notNull(),
    excerpt: text('excerpt'),
    content: text('content'),
    authorId: uuid('author_id'),
    photoUrl: text('photo_url'),
    publishDate: at('publish_date'),
    category: text('category'),
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
    ...timestamps(),
  },
  (t) => [uniqueIndex('posts_church_slug_idx').on(t.churchId, t.slug), index('posts_church_publish_idx').on(t.churchId, t.publishDate)],
);

/** URL redirects, one per normalised `fromPath`. */
export const redirects = pgTable(
  'redirects',
  {
    id: id(),
    churchId: churchId(),
    fromPath: text('from_path').notNull(),
    toPath: text('to_path').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('redirects_church_from_idx').on(t.churchId, t.fromPath)],
);

/** Key-value settings: the church's (`userId` null) and each user's. */
export const settings = pgTable(
  'settings',
  {
    id: id(),
    churchId: churchId(),
    userId: uuid('user_id'),
    keyName: text('key_name').notNull(),
    value: text('value'),
    public: boolean('public').notNull().default(false),
  },
  (t) => [uniqueIndex('settings_church_user_key_idx').on(t.churchId, sql`coalesce(${t.userId}, '00000000-0000-0000-0000-000000000000'::uuid)`, t.keyName)],
);

/** A group's event, one-off or recurring (`recurrenceRule` is an RFC 5545 RRULE). */
export const events = pgTable(
  'events',
  {
    id: id(),
    churchId: churchId(),
    // null only for a member's request of an event that names no group (B1App RequestEventPage sends none)
    groupId: uuid('group_id'),
    allDay: boolean('all_day').notNull().default(false),
    start: at('start').notNull(),
    end: at('end').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    visibility: text('visibility').notNull().default('public'),
    recurrenceRule: text('recurrence_rule'),
    // Registration, as the staff app's registration settings save it: whether people may sign up, how many,
    // with a waiting list, between which dates, the tags shown with it and the form of questions asked.
    registrationEnabled: boolean('registration_enabled').notNull().default(false),
    capacity: integer('capacity'),
    waitlistEnabled: boolean('waitlist_enabled').notNull().default(false),
    registrationOpenDate: at('registration_open_date'),
    registrationCloseDate: at('registration_close_date'),
    /** comma-separated, as the apps write and split them */
    tags: text('tags'),
    formId: uuid('form_id'),
    // A member's request (`POST /events/request`): `pending` until staff approve or reject it; null for events
    // staff and leaders write. Only null and `approved` events are on calendars.
    approvalStatus: text('approval_status'),
    requestedBy: uuid('requested_by'),
    rsvpDisabled: boolean('rsvp_disabled').notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    index('events_church_group_idx').on(t.churchId, t.groupId, t.start),
    index('events_church_registration_idx').on(t.churchId, t.start).where(sql`${t.registrationEnabled}`),
    index('events_church_requested_idx').on(t.churchId, t.requestedBy).where(sql`${t.requestedBy} is not null`),
  ],
);

/** A date taken out of a recurring event (the occurrence's start). */
export const eventExceptions = pgTable(
  'event_exceptions',
  {
    id: id(),
    churchId: churchId(),
    eventId: uuid('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    exceptionDate: at('exception_date').notNull(),
  },
  (t) => [index('event_exceptions_church_event_idx').on(t.churchId, t.eventId)],
);

export const curatedCalendars = pgTable(
  'curated_calendars',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    ...timestamps(),
  },
  (t) => [index('curated_calendars_church_idx').on(t.churchId)],
);

/** An entry of a curated calendar: one event of a group, or (no `eventId`) all of the group's events. */
export const curatedEvents = pgTable(
  'curated_events',
  {
    id: id(),
    churchId: churchId(),
    curatedCalendarId: uuid('curated_calendar_id')
      .notNull()
      .references(() => curatedCalendars.id, { onDelete: 'cascade' }),
    groupId: uuid('group_id').notNull(),
    eventId: uuid('event_id').references(() => events.id, { onDelete: 'cascade' }),
  },
  (t) => [index('curated_events_church_calendar_idx').on(t.churchId, t.curatedCalendarId)],
);

// ---- rooms, resources and their bookings (calendar side)

/** A room of the church that events book; `approvalGroupId` routes bookings by others to that group's approval. */
export const rooms = pgTable(
  'rooms',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    description: text('description'),
    capacity: integer('capacity'),
    approvalGroupId: uuid('approval_group_id'),
    ...timestamps(),
  },
  (t) => [index('rooms_church_idx').on(t.churchId, t.name)],
);

/** Equipment events book, `quantity` of them in all (a booking takes some of them for its occurrences). */
export const resources = pgTable(
  'resources',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    description: text('description'),
    quantity: integer('quantity').notNull().default(1),
    approvalGroupId: uuid('approval_group_id'),
    ...timestamps(),
  },
  (t) => [index('resources_church_idx').on(t.churchId, t.name)],
);

/**
 * A room or a resource booked by an event: for each of the event's occurrences, padded by set-up and tear-down
 * minutes, or for one fixed window (`startTime`-`endTime`). `status`: `approved`, `pending` or `rejected`.
 */
export const eventBookings = pgTable(
  'event_bookings',
  {
    id: id(),
    churchId: churchId(),
    eventId: uuid('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    roomId: uuid('room_id').references(() => rooms.id, { onDelete: 'cascade' }),
    resourceId: uuid('resource_id').references(() => resources.id, { onDelete: 'cascade' }),
    quantity: integer('quantity').notNull().default(1),
    status: text('status').notNull().default('approved'),
    setupMinutes: integer('setup_minutes'),
    teardownMinutes: integer('teardown_minutes'),
    startTime: at('start_time'),
    endTime: at('end_time'),
    requestedBy: uuid('requested_by'),
    requestedDate: at('requested_date'),
    resolvedBy: uuid('resolved_by'),
    resolvedDate: at('resolved_date'),
    ...timestamps(),
  },
  (t) => [
    index('event_bookings_church_event_idx').on(t.churchId, t.eventId),
    index('event_bookings_church_room_idx').on(t.churchId, t.roomId).where(sql`${t.roomId} is not null`),
    index('event_bookings_church_resource_idx').on(t.churchId, t.resourceId).where(sql`${t.resourceId} is not null`),
    index('event_bookings_church_pending_idx').on(t.churchId, t.requestedDate).where(sql`${t.status} = 'pending'`),
    check('event_bookings_one_target', sql`(${t.roomId} is null) <> (${t.resourceId} is null)`),
    check('event_bookings_quantity', sql`${t.quantity} > 0`),
  ],
);

/** A time a room, a resource or (neither) every room and resource cannot be booked. */
export const calendarBlockouts = pgTable(
  'calendar_blockouts',
  {
    id: id(),
    churchId: churchId(),
    roomId: uuid('room_id').references(() => rooms.id, { onDelete: 'cascade' }),
    resourceId: uuid('resource_id').references(() => resources.id, { onDelete: 'cascade' }),
    startTime: at('start_time').notNull(),
    endTime: at('end_time').notNull(),
    reason: text('reason'),
    ...timestamps(),
  },
  (t) => [
    index('calendar_blockouts_church_time_idx').on(t.churchId, t.startTime),
    check('calendar_blockouts_one_target', sql`${t.roomId} is null or ${t.resourceId} is null`),
  ],
);

/** What a new event starts from: title, length, visibility, rooms (comma-separated ids) and resources (JSON text). */
export const eventTemplates = pgTable(
  'event_templates',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    title: text('title'),
    description: text('description'),
    durationMinutes: integer('duration_minutes'),
    visibility: text('visibility'),
    roomIds: text('room_ids'),
    resourcesJson: text('resources_json'),
    ...timestamps(),
  },
  (t) => [index('event_templates_church_idx').on(t.churchId, t.name)],
);

/** A member's answer (`yes`, `no`, `maybe`) for one occurrence of a group event, one per person and occurrence. */
export const eventRsvps = pgTable(
  'event_rsvps',
  {
    id: id(),
    churchId: churchId(),
    eventId: uuid('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    personId: uuid('person_id').notNull(),
    occurrenceStart: at('occurrence_start').notNull(),
    response: text('response').notNull(),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('event_rsvps_church_event_person_occurrence_idx').on(t.churchId, t.eventId, t.personId, t.occurrenceStart),
    index('event_rsvps_church_event_occurrence_idx').on(t.churchId, t.eventId, t.occurrenceStart),
  ],
);
