import { sql, type SQL } from 'drizzle-orm';
import { boolean, date, index, integer, pgTable, text, uniqueIndex, uuid, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { at, churchId, id, removed, timestamps } from '@church/common';

export const households = pgTable('households', { id: id(), churchId: churchId(), name: text('name'), ...timestamps() }, (t) => [
  index('households_church_idx').on(t.churchId, t.name),
]);

type NameColumns = Record<'displayName' | 'firstName' | 'lastName' | 'nickName' | 'email', AnyPgColumn>;

/**
 * Every name and the email of a person in one text, first and last name side by side: whatever a name
 * search matches in one of them it matches here, so the trigram index on it narrows a search to a few
 * candidates (the search still checks each field). The index is only used when the query spells the
 * expression exactly like this.
 */
export function peopleSearchText(t: NameColumns): SQL {
  const part = (c: AnyPgColumn) => sql`coalesce(${c}, '')`;
  return sql`(${sql.join([t.displayName, t.firstName, t.lastName, t.nickName, t.email].map(part), sql` || ' ' || `)})`;
}

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
    /** the messaging conversation that holds staff notes about the person (B1Admin's person page) */
    conversationId: uuid('conversation_id'),
    removed: removed(),
    ...timestamps(),
  },
  (t) => [
    index('people_church_name_idx').on(t.churchId, t.lastName, t.firstName),
    index('people_church_email_idx').on(t.churchId, sql`lower(${t.email})`),
    index('people_church_household_idx').on(t.churchId, t.householdId),
    index('people_church_user_idx').on(t.churchId, t.userId),
    // `people/recent` (newest first, id breaking ties) read backwards: people imported together share created_at.
    index('people_church_created_idx').on(t.churchId, t.createdAt, t.id),
    // The mobile number's digits (`phoneDigits` in repos/people spells it the same): SMS opt-out by number.
    index('people_church_mobile_digits_idx').on(t.churchId, sql`regexp_replace(coalesce(${t.mobilePhone}, ''), '[^0-9]', '', 'g')`),
    // church_id through btree_gin, the text through pg_trgm: `ilike '%term%'` within one church.
    index('people_church_search_idx').using('gin', t.churchId, sql`${peopleSearchText(t)} gin_trgm_ops`),
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

/** The church's own fields on person records (B1Admin's custom fields): a name, an input type and choices. */
export const personFields = pgTable(
  'person_fields',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    /** Textbox | Whole Number | Decimal | Date | Yes/No | Multiple Choice */
    fieldType: text('field_type').notNull().default('Textbox'),
    /** Multiple Choice: JSON text of `[{value, text}]`, as the apps write it */
    choices: text('choices'),
    sort: integer('sort').notNull().default(0),
    ...timestamps(),
  },
  (t) => [index('person_fields_church_idx').on(t.churchId, t.sort)],
);

/** A person's value of a custom field (one per person and field; an empty value is no row). */
export const personFieldValues = pgTable(
  'person_field_values',
  {
    id: id(),
    churchId: churchId(),
    personId: uuid('person_id').notNull(),
    fieldId: uuid('field_id').notNull(),
    value: text('value').notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('person_field_values_uq').on(t.churchId, t.personId, t.fieldId), index('person_field_values_field_idx').on(t.churchId, t.fieldId)],
);
