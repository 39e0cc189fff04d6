import { sql } from 'drizzle-orm';
import { boolean, date, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id, removed, timestamps } from '@church/common';

export const households = pgTable('households', { id: id(), churchId: churchId(), name: text('name'), ...timestamps() }, (t) => [
  index('households_church_idx').on(t.churchId, t.name),
]);

/** A person of a church. Reads nest `name{}` and `contactInfo{}`; the columns stay flat for indexing. */
export const people = pgTable(
  'people',
  {
    id: id(),
    churchId: churchId(),
    userId: uuid('user_id'),
    displayName: text('display_name'),
    firstName: text('first_name'),
    middleName: text('middle_name'),
    lastName: text('last_name'),
    nickName: text('nick_name'),
    prefix: text('prefix'),
    suffix: text('suffix'),
    birthDate: date('birth_date', { mode: 'date' }),
    gender: text('gender'),
    maritalStatus: text('marital_status'),
    anniversary: date('anniversary', { mode: 'date' }),
    membershipStatus: text('membership_status').notNull().default('Guest'),
    homePhone: text('home_phone'),
    mobilePhone: text('mobile_phone'),
    workPhone: text('work_phone'),
    email: text('email'),
    address1: text('address1'),
    address2: text('address2'),
    city: text('city'),
    state: text('state'),
    zip: text('zip'),
    photo: text('photo'),
    photoUpdated: at('photo_updated'),
    householdId: uuid('household_id'),
    householdRole: text('household_role'),
    optedOut: boolean('opted_out').notNull().default(false),
    campusId: uuid('campus_id'),
    nametagNotes: text('nametag_notes'),
    school: text('school'),
    grade: text('grade'),
    removed: removed(),
    ...timestamps(),
  },
  (t) => [
    index('people_church_name_idx').on(t.churchId, t.lastName, t.firstName),
    index('people_church_email_idx').on(t.churchId, sql`lower(${t.email})`),
    index('people_church_household_idx').on(t.churchId, t.householdId),
    index('people_church_user_idx').on(t.churchId, t.userId),
    index('people_church_created_idx').on(t.churchId, t.createdAt),
  ],
);

/** Per-person directory visibility of address, phone and email: everyone | members | groups | none (one row per person). */
export const visibilityPreferences = pgTable(
  'visibility_preferences',
  {
    id: id(),
    churchId: churchId(),
    personId: uuid('person_id').notNull(),
    address: text('address'),
    phoneNumber: text('phone_number'),
    email: text('email'),
    ...timestamps(),
  },
  (t) => [uniqueIndex('visibility_preferences_person_uq').on(t.churchId, t.personId)],
);
