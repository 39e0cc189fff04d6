import { z } from 'zod';
import { Id, IsoDate } from '@church/common';
import { jsonTextInput } from '../domain/website/json-text';
import { OptText, Stamp, Text } from './website-fields';

// What the website half accepts and answers. Save bodies strip unknown fields (clients post records back as
// they read them, with `churchId`); the church always comes from the token.

/** JSON settings of a section or element (`answers`, `styles`). */
const JsonObject = z.record(z.string(), z.unknown());
/** The settings objects as JSON text, as the site editor reads them (`null` when empty). */
const JsonTextOut = { answersJSON: z.string().nullable(), stylesJSON: z.string().nullable(), animationsJSON: z.string().nullable() };

export const Visibility = z.enum(['everyone', 'visitors', 'members', 'staff', 'groups']);

/** The groups of a `groups` gate: a list of ids, or the apps' JSON text of one (`'["…"]'`); null or empty is none. */
const GroupIdsIn = z.preprocess((v) => {
  if (v === null || v === '') return [];
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}, z.array(Id).max(200));

/** Which of the church's websites: one of its additional sites, or (absent) its main site. */
export const SiteQuery = z.object({ siteId: Id.optional() });

// ---- pages, sections, elements, blocks

export const Page = z.object({
  id: z.string(),
  churchId: z.string(),
  siteId: z.string().nullable(),
  name: z.string().nullable(),
  url: z.string(),
  title: z.string().nullable(),
  metaDescription: z.string().nullable(),
  layout: z.string().nullable(),
  visibility: z.string(),
  /** JSON text of the ids, as the page settings dialog reads and writes it; null when none */
  groupIds: z.string().nullable(),
  /** when the public version was published (drafts); null: never, the working tree is live */
  publishedAt: z.date().nullable().optional(),
});
export const PageSave = z.object({
  id: Id.optional(),
  siteId: Id.nullish(),
  name: OptText(255),
  url: Text(500).min(1, 'is required').optional(),
  title: OptText(500),
  metaDescription: OptText(2000),
  layout: OptText(100),
  visibility: Visibility.optional(),
  groupIds: GroupIdsIn.optional(),
});

export const Section = z.object({
  id: z.string(),
  churchId: z.string(),
  pageId: z.string().nullable(),
  blockId: z.string().nullable(),
  zone: z.string(),
  background: z.string().nullable(),
  textColor: z.string().nullable(),
  headingColor: z.string().nullable(),
  linkColor: z.string().nullable(),
  targetBlockId: z.string().nullable(),
  sort: z.number(),
  answers: JsonObject,
  styles: JsonObject,
  animations: JsonObject,
  ...JsonTextOut,
});
/** What a section says about itself, saved alone or within a tree. */
const SectionFields = {
  zone: Text(50).min(1).optional(),
  background: OptText(2000),
  textColor: OptText(100),
  headingColor: OptText(100),
  linkColor: OptText(100),
  targetBlockId: Id.nullish(),
  sort: z.number().finite().optional(),
  answers: JsonObject.optional(),
  styles: JsonObject.optional(),
  animations: JsonObject.optional(),
};
export const SectionSave = jsonTextInput(z.object({
  id: Id.optional(),
  pageId: Id.nullish(),
  blockId: Id.nullish(),
  ...SectionFields,
}));

export const Element = z.object({
  id: z.string(),
  churchId: z.string(),
  sectionId: z.string(),
  blockId: z.string().nullable(),
  parentId: z.string().nullable(),
  elementType: z.string(),
  sort: z.number(),
  answers: JsonObject,
  styles: JsonObject,
  animations: JsonObject,
  ...JsonTextOut,
});
export const ElementSave = jsonTextInput(z.object({
  id: Id.optional(),
  sectionId: Id.optional(),
  blockId: Id.nullish(),
  parentId: Id.nullish(),
  elementType: Text(100).min(1, 'is required').optional(),
  sort: z.number().finite().optional(),
  answers: JsonObject.optional(),
  styles: JsonObject.optional(),
  animations: JsonObject.optional(),
}));

export const Block = z.object({ id: z.string(), churchId: z.string(), siteId: z.string().nullable(), name: z.string().nullable(), blockType: z.string() });
export const BlockSave = z.object({
  id: Id.optional(),
  siteId: Id.nullish(),
  name: OptText(255),
  blockType: z.enum(['footerBlock', 'elementBlock', 'sectionBlock']).optional(),
});

/** A tree as clients send it (import, AI page, inline snapshot): ids in it are ignored. */
export interface TreeElementInput {
  elementType: string;
  sort?: number;
  answers?: Record<string, unknown>;
  styles?: Record<string, unknown>;
  animations?: Record<string, unknown>;
  elements?: TreeElementInput[];
}
export const TreeElementIn: z.ZodType<TreeElementInput> = z.lazy(() =>
  jsonTextInput(
    z.object({
      elementType: Text(100).min(1, 'is required'),
      sort: z.number().finite().optional(),
      answers: JsonObject.optional(),
      styles: JsonObject.optional(),
      animations: JsonObject.optional(),
      elements: z.array(TreeElementIn).max(500, 'at most 500 elements').optional(),
    }),
  ),
);
const TreeSectionFields = z.object({
  ...SectionFields,
  elements: z.array(TreeElementIn).max(500, 'at most 500 elements').optional(),
});
/** A section of a tree as sent (the editor's snapshots carry the JSON text forms too). */
export const TreeSectionIn = jsonTextInput(TreeSectionFields);
export type TreeSectionInput = z.output<typeof TreeSectionFields>;
const TreeSections = z.array(TreeSectionIn).max(30, 'at most 30 sections');
export const ImportTreeBody = z.object({
  siteId: Id.nullish(),
  title: OptText(500),
  name: OptText(255),
  url: Text(500).min(1, 'is required'),
  metaDescription: OptText(2000),
  layout: OptText(100),
  visibility: Visibility.optional(),
  groupIds: GroupIdsIn.optional(),
  sections: TreeSections.default([]),
});
/** The AI page: the same tree, optionally replacing the content of an existing page (`id`). */
export const AiPageBody = ImportTreeBody.extend({ id: Id.optional() });

/** A section's or block's tree as the API answers it (ids kept, or stripped on url fetches). */
export const TreeAnswer = z.any();

// ---- links, global styles

export const Link = z.object({
  id: z.string(),
  churchId: z.string(),
  siteId: z.string().nullable(),
  category: z.string(),
  url: z.string().nullable(),
  linkType: z.string().nullable(),
  linkData: z.string().nullable(),
  icon: z.string().nullable(),
  text: z.string().nullable(),
  sort: z.number(),
  parentId: z.string().nullable(),
  visibility: z.string(),
  groupIds: z.array(z.string()),
});
export const LinkSave = z.object({
  id: Id.optional(),
  siteId: Id.nullish(),
  category: Text(100).min(1).optional(),
  url: OptText(2000),
  linkType: OptText(100),
  linkData: OptText(2000),
  icon: OptText(200),
  text: OptText(500),
  sort: z.number().finite().optional(),
  parentId: Id.nullish(),
  visibility: Visibility.optional(),
  groupIds: GroupIdsIn.optional(),
});
export const CategoryQuery = SiteQuery.extend({ category: Text(100).optional() });

export const GlobalStyle = z.object({
  id: z.string().nullable(),
  churchId: z.string(),
  siteId: z.string().nullable(),
  fonts: z.string().nullable(),
  palette: z.string().nullable(),
  typography: z.string().nullable(),
  spacing: z.string().nullable(),
  borderRadius: z.string().nullable(),
  navStyles: z.string().nullable(),
  customCss: z.string().nullable(),
  customJs: z.string().nullable(),
  /** `customJs` under the name the apps use */
  customJS: z.string().nullable(),
});
export const GlobalStyleSave = z
  .object({
    id: Id.optional(),
    siteId: Id.nullish(),
    fonts: OptText(20_000),
    palette: OptText(20_000),
    typography: OptText(20_000),
    spacing: OptText(20_000),
    borderRadius: OptText(100),
    navStyles: OptText(20_000),
    customCss: OptText(200_000),
    customJs: OptText(200_000),
    customJS: OptText(200_000),
  })
  // The apps edit `customJS` (and post back the `customJs` they loaded beside it): their name wins.
  .transform(({ customJS, ...rest }) => (customJS === undefined ? rest : { ...rest, customJs: customJS }));

// ---- page history

export const HistoryEntry = z.object({
  id: z.string(),
  churchId: z.string(),
  pageId: z.string().nullable(),
  blockId: z.string().nullable(),
  snapshot: z.any(),
  description: z.string().nullable(),
  userId: z.string().nullable(),
  createdAt: Stamp,
  /** the snapshot as JSON text and the time under the names the site editor's history reads */
  snapshotJSON: z.string(),
  createdDate: Stamp,
});
/** A stored snapshot: the tree's own fields and its sections. */
export const SnapshotIn = z.looseObject({ sections: TreeSections.default([]) });
export const HistorySave = z.object({
  pageId: Id.nullish(),
  blockId: Id.nullish(),
  description: OptText(500),
  /** omitted: the current tree is snapshotted */
  snapshot: SnapshotIn.optional(),
  /** the site editor's form: the snapshot as JSON text */
  snapshotJSON: z.string().max(10_000_000).nullish(),
});
export const RestoreSnapshotBody = z.object({ pageId: Id.nullish(), blockId: Id.nullish(), snapshot: SnapshotIn });

// ---- posts

export const Post = z.object({
  id: z.string(),
  churchId: z.string(),
  title: z.string(),
  slug: z.string(),
  excerpt: z.string().nullable(),
  content: z.string().nullable(),
  authorId: z.string().nullable(),
  authorName: z.string().nullable(),
  photoUrl: z.string().nullable(),
  publishDate: Stamp.nullable(),
  category: z.string().nullable(),
  tags: z.array(z.string()),
  createdAt: Stamp,
  updatedAt: Stamp,
});
export const PostSave = z.object({
  id: Id.optional(),
  title: Text(500).min(1, 'is required').optional(),
  slug: Text(200)
    .toLowerCase()
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case letters, digits and single hyphens')
    .optional(),
  excerpt: OptText(5000),
  content: z.string().max(1_000_000).nullish(),
  authorId: Id.nullish(),
  photoUrl: OptText(2000),
  publishDate: IsoDate.nullish(),
  category: OptText(100),
  tags: z.array(Text(100).min(1)).max(50).optional(),
});
export const PublicPostsQuery = z.object({
  category: Text(100).optional(),
  tag: Text(100).optional(),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(50, 'at most 50 a page').default(10),
});
/** The categories of the published posts. */
export const PostCategories = z.array(z.string());
export const PostPage = z.object({ posts: z.array(Post), total: z.number(), page: z.number(), pageSize: z.number() });

// ---- redirects

export const Redirect = z.object({ id: z.string(), churchId: z.string(), fromPath: z.string(), toPath: z.string() });
export const RedirectSave = z.object({
  id: Id.optional(),
  fromPath: Text(1000).min(1, 'is required').optional(),
  toPath: Text(2000).min(1, 'is required').optional(),
});

// ---- settings

export const Setting = z.object({
  id: z.string(),
  churchId: z.string(),
  userId: z.string().nullable(),
  keyName: z.string(),
  value: z.string().nullable(),
  public: z.boolean(),
});
export const SettingSave = z.object({
  id: Id.optional(),
  keyName: Text(200).min(1, 'is required').optional(),
  /** text, or an image as a `data:image/...;base64,` address (stored, then saved as its URL) */
  value: z.string().max(15_000_000).nullish(),
  public: z.boolean().optional(),
});

// ---- events and calendars

export const Event = z.object({
  id: z.string(),
  churchId: z.string(),
  groupId: z.string().nullable(),
  allDay: z.boolean(),
  start: Stamp,
  end: Stamp,
  title: z.string(),
  description: z.string().nullable(),
  visibility: z.string(),
  recurrenceRule: z.string().nullable(),
  registrationEnabled: z.boolean(),
  capacity: z.number().nullable(),
  waitlistEnabled: z.boolean(),
  registrationOpenDate: Stamp.nullable(),
  registrationCloseDate: Stamp.nullable(),
  tags: z.string().nullable(),
  formId: z.string().nullable(),
  approvalStatus: z.string().nullable(),
  requestedBy: z.string().nullable(),
  rsvpDisabled: z.boolean(),
  exceptionDates: z.array(Stamp).optional(),
});
export const EventSave = z.object({
  id: Id.optional(),
  groupId: Id.optional(),
  allDay: z.boolean().optional(),
  start: IsoDate.optional(),
  end: IsoDate.optional(),
  title: Text(500).min(1, 'is required').optional(),
  description: OptText(20_000),
  visibility: z.enum(['public', 'private']).optional(),
  recurrenceRule: OptText(1000),
  registrationEnabled: z.boolean().optional(),
  /** places; none: no limit */
  capacity: z.number().int().min(0).max(1_000_000).nullish(),
  waitlistEnabled: z.boolean().optional(),
  registrationOpenDate: IsoDate.nullish(),
  registrationCloseDate: IsoDate.nullish(),
  tags: OptText(1000),
  formId: Id.nullish(),
  /** B1Admin/B1App hide the RSVP buttons of such an event; the RSVP routes refuse it */
  rsvpDisabled: z.boolean().optional(),
});
export const EventException = z.object({ id: z.string(), churchId: z.string(), eventId: z.string(), exceptionDate: Stamp });
export const EventExceptionSave = z.object({ id: Id.optional(), eventId: Id.optional(), exceptionDate: IsoDate.optional() });
export const EventIdsQuery = z.object({
  eventIds: z
    .string()
    .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
    .pipe(z.array(Id).max(500))
    .optional(),
});
export const SubscribeQuery = z.object({ churchId: Id, groupId: Id.optional(), curatedCalendarId: Id.optional() });

/** A calendar day, `YYYY-MM-DD` (an ISO date-time is read as the day it names). */
const CalendarDay = z.union([z.iso.date(), z.iso.datetime({ offset: true, local: true })], { error: 'must be a date (YYYY-MM-DD)' }).transform((s) => s.slice(0, 10));
/** The window of `GET /events/holidays` (B1Admin BulkGroupEventsModal): from today to a year on unless asked. */
export const HolidaysQuery = z.object({ start: CalendarDay.optional(), end: CalendarDay.optional() });
export const Holidays = z.array(z.object({ date: z.string().describe('YYYY-MM-DD'), name: z.string() }));

export const CuratedCalendar = z.object({ id: z.string(), churchId: z.string(), name: z.string() });
export const CuratedCalendarSave = z.object({ id: Id.optional(), name: Text(255).min(1, 'is required').optional() });

export const CuratedEvent = z.object({
  id: z.string(),
  churchId: z.string(),
  curatedCalendarId: z.string(),
  groupId: z.string(),
  eventId: z.string().nullable(),
});
/**
 * A calendar entry with its events (`events`); as ChurchApps' Api answers it, one row per event of the entry, the
 * event's fields beside the entry's (what B1Admin's and B1App's calendars draw: `title`, `start`, `end`,
 * `recurrenceRule`, ...), with `realEventId` (the event's id) and `curatedGroupId` (the entry's group).
 */
export const CuratedEventWithEvents = CuratedEvent.extend({
  events: z.array(Event).optional(),
  realEventId: z.string().optional(),
  curatedGroupId: z.string().optional(),
}).extend(Event.pick({ title: true, description: true, start: true, end: true, allDay: true, recurrenceRule: true, visibility: true, exceptionDates: true }).partial().shape);
export const CuratedEventSave = z.object({
  id: Id.optional(),
  curatedCalendarId: Id.optional(),
  groupId: Id.optional(),
  eventId: Id.nullish(),
  /** adds one entry per event of the group */
  eventIds: z.array(Id).max(500).optional(),
});
export const WithoutEventsQuery = z.object({ withoutEvents: z.string().max(10).optional() });

/** `POST /sections/tree`: one section with its nested elements, for a page or a block (B1Admin's templates and AI). */
export const SectionTreeBody = z.object({
  section: jsonTextInput(TreeSectionFields.extend({ pageId: Id.nullish(), blockId: Id.nullish() })),
});

// ---- parameters, queries and answers of the website routes

export { ChurchParams } from '@church/common';
export const ChurchItemParams = z.object({ churchId: Id, id: Id });
export const PageParams = z.object({ pageId: Id });
export const BlockParams = z.object({ blockId: Id });
export const GroupParams = z.object({ groupId: Id });
export const EventParams = z.object({ eventId: Id });
export const ChurchGroupParams = z.object({ churchId: Id, groupId: Id });
export const BlockTypeParams = z.object({ blockType: z.string().max(100) });
export const SlugParams = z.object({ churchId: Id, slug: z.string().max(200) });
export const CalendarParams = z.object({ curatedCalendarId: Id });
export const ChurchCalendarParams = z.object({ churchId: Id, curatedCalendarId: Id });
export const CalendarEventParams = z.object({ curatedCalendarId: Id, eventId: Id });
export const CalendarGroupParams = z.object({ curatedCalendarId: Id, groupId: Id });

/** The page tree by `url` on a site, or by `id`. */
export const TreeQuery = SiteQuery.extend({ url: z.string().trim().min(1).max(500).optional(), id: Id.optional() });
/** A public page as sitemaps read it. */
export const PublicPage = z.object({ url: z.string(), title: z.string().nullable(), metaDescription: z.string().nullable() });
export const Published = z.object({ publishedAt: z.date() });
export const Success = z.object({ success: z.boolean() });
export const ConvertToBlockQuery = z.object({ convertToBlock: z.enum(['true', 'false', '1', '0']).optional() });

export const Links = z.array(Link);
export const HistoryEntries = z.array(HistoryEntry);
export const Settings = z.array(Setting);
/** The public settings as key and value. */
export const PublicSettings = z.record(z.string(), z.string().nullable());
export const Events = z.array(Event);
/**
 * Timeline items: the event with what B1App's timeline (src/helpers/TimelineHelper.ts) reads of a post, `postType`
 * (`event`) and `postId` (the event's id), beside `groupId`, as ChurchApps' Api answers them.
 */
export const TimelineEvents = z.array(Event.extend({ postType: z.literal('event'), postId: z.string() }));

/** The site's address the feed's links are made from. */
export const SiteUrlQuery = z.object({ siteUrl: z.url({ protocol: /^https?$/, message: 'must be an http(s) address' }).max(500) });
/** The blog as RSS 2.0: the route sets the type, and Fastify's serializer leaves a string of a non-JSON type as it is. */
export const RssFeed = z.string().describe('the RSS feed (application/rss+xml)');
/** The ICS calendar: sent as text/calendar (a kept, compressed body). */
export const IcsFeed = z.string().describe('the ICS calendar (text/calendar)');

export const RedirectPathQuery = z.object({ path: z.string().max(1000).optional() });
/** One redirect (with `path`) or every redirect of the church: the route picks the fields (a union would not serialize fast). */
export const PublicRedirects = z.any();
