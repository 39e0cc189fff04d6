import { boolean, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id, removed, timestamps } from '@church/common';

/** Groups; `tags` holds standard | ministry | team, and a team's `parentGroupId` is its ministry group. */
export const groups = pgTable(
  'groups',
  {
    id: id(),
    churchId: churchId(),
    categoryName: text('category_name'),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    trackAttendance: boolean('track_attendance').notNull().default(false),
    parentPickup: boolean('parent_pickup').notNull().default(false),
    printNametag: boolean('print_nametag').notNull().default(false),
    about: text('about'),
    photoUrl: text('photo_url'),
    tags: text('tags').array().notNull().default([]),
    labels: text('labels').array().notNull().default([]),
    meetingTime: text('meeting_time'),
    meetingLocation: text('meeting_location'),
    publicRoster: boolean('public_roster').notNull().default(false),
    parentGroupId: uuid('parent_group_id'),
    /** an archived group is kept out of the group lists (`GET /groups?archived=1` lists them) and takes no one new */
    archived: boolean('archived').notNull().default(false),
    /** who may join on their own (`groupmembers/self`): open | request | closed (staff add people) */
    joinPolicy: text('join_policy').notNull().default('closed'),
    removed: removed(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('groups_church_slug_uq').on(t.churchId, t.slug), index('groups_church_name_idx').on(t.churchId, t.name)],
);

export const groupMembers = pgTable(
  'group_members',
  {
    id: id(),
    churchId: churchId(),
    groupId: uuid('group_id').notNull(),
    personId: uuid('person_id').notNull(),
    leader: boolean('leader').notNull().default(false),
    joinDate: at('join_date').notNull().defaultNow(),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('group_members_uq').on(t.churchId, t.groupId, t.personId),
    index('group_members_person_idx').on(t.churchId, t.personId),
  ],
);

/** Joins and leaves of groups, for the health screens (append-only; memberships before it were copied as joins). */
export const groupMemberHistory = pgTable(
  'group_member_history',
  {
    id: id(),
    churchId: churchId(),
    groupId: uuid('group_id').notNull(),
    personId: uuid('person_id').notNull(),
    action: text('action', { enum: ['joined', 'left'] }).notNull(),
    at: at('at').notNull().defaultNow(),
  },
  (t) => [index('group_member_history_church_at_idx').on(t.churchId, t.at), index('group_member_history_group_idx').on(t.churchId, t.groupId, t.at)],
);
