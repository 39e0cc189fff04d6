import { z } from 'zod';
import { hasPermission, isMember, type Claims } from '@church/auth';
import { Email, Id, IsoDate, exactShape } from '@church/common';
import type { PersonRecord, PersonRow, PersonValues } from '../../repos/people';

// Clients send '' or null to clear a field; both store null.
const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((v) => (v === '' ? null : v));
const emptyToNull = (v: unknown) => (v === '' ? null : v);
// Years outside 1000-9999 are typos, and PostgreSQL's date type would refuse some of them.
const DateInput = z
  .preprocess(emptyToNull, IsoDate.refine((d) => d.getUTCFullYear() >= 1000 && d.getUTCFullYear() <= 9999, 'must be a date between the years 1000 and 9999').nullable())
  .optional();
const EmailInput = z.preprocess(emptyToNull, Email.nullable()).optional();
const IdInput = z.preprocess(emptyToNull, Id.nullable()).optional();

const NameInput = z.object({
  first: text(100),
  last: text(100),
  middle: text(100),
  nick: text(100),
  prefix: text(30),
  suffix: text(30),
});

const ContactInput = z.object({
  address1: text(200),
  address2: text(200),
  city: text(100),
  state: text(100),
  zip: text(20),
  homePhone: text(50),
  mobilePhone: text(50),
  workPhone: text(50),
  email: EmailInput,
});

/**
 * One person as a save accepts it: the spec's flat `firstName`/`lastName` and the nested `name{}` /
 * `contactInfo{}` clients read back; a flat field wins over its nested twin. Unknown keys are dropped.
 */
export const PersonSave = z.object({
  id: Id.optional(),
  firstName: text(100),
  lastName: text(100),
  middleName: text(100),
  nickName: text(100),
  prefix: text(30),
  suffix: text(30),
  name: NameInput.optional(),
  contactInfo: ContactInput.optional(),
  ...ContactInput.shape,
  birthDate: DateInput,
  anniversary: DateInput,
  gender: text(30),
  maritalStatus: text(30),
  // The apps post back the record they loaded; an empty status there means "leave it" (every person has one).
  membershipStatus: z.preprocess((v) => (v === null || v === '' ? undefined : v), z.string().trim().min(1).max(50).optional()),
  householdId: IdInput,
  householdRole: text(30),
  /** a URL to keep, or a `data:image/...;base64,` photo to store */
  photo: z.string().max(8_000_000).nullish(),
  optedOut: z.boolean().optional(),
  campusId: IdInput,
  nametagNotes: text(500),
  school: text(100),
  grade: text(30),
  /** the messaging conversation of staff notes about the person (B1Admin stores it after creating it) */
  conversationId: IdInput,
});
export type PersonInput = z.output<typeof PersonSave>;

const Name = z.object({
  first: z.string().nullish(),
  last: z.string().nullish(),
  middle: z.string().nullish(),
  nick: z.string().nullish(),
  display: z.string().nullish(),
  prefix: z.string().nullish(),
  suffix: z.string().nullish(),
});

/** A person's contact details as reads return them (the directory returns the visible subset). */
export const ContactInfo = z.object({
  address1: z.string().nullish(),
  address2: z.string().nullish(),
  city: z.string().nullish(),
  state: z.string().nullish(),
  zip: z.string().nullish(),
  homePhone: z.string().nullish(),
  mobilePhone: z.string().nullish(),
  workPhone: z.string().nullish(),
  email: z.string().nullish(),
});

/** A person as every read returns it. */
export const Person = z.object({
  id: z.string(),
  churchId: z.string(),
  userId: z.string().nullish(),
  name: Name,
  contactInfo: ContactInfo,
  birthDate: z.date().nullish(),
  gender: z.string().nullish(),
  maritalStatus: z.string().nullish(),
  anniversary: z.date().nullish(),
  membershipStatus: z.string().nullish(),
  householdId: z.string().nullish(),
  householdRole: z.string().nullish(),
  photo: z.string().nullish(),
  photoUpdated: z.date().nullish(),
  optedOut: z.boolean(),
  campusId: z.string().nullish(),
  nametagNotes: z.string().nullish(),
  school: z.string().nullish(),
  grade: z.string().nullish(),
  conversationId: z.string().nullish(),
  createdAt: z.date().nullish(),
  updatedAt: z.date().nullish(),
});
export const PersonList = z.array(Person);
/** A list of `toPerson` records, written with JSON.stringify (see `exactShape`): lists run to 10,000 people. */
export const PersonRecords = exactShape(z.array(Person));

/** Name-only view (`/people/basic`, household lists for outsiders). */
export const BasicPerson = z.object({
  id: z.string(),
  name: Name.pick({ first: true, last: true, nick: true, display: true }),
  photo: z.string().nullish(),
  householdId: z.string().nullish(),
  householdRole: z.string().nullish(),
});
export const BasicPersonList = z.array(BasicPerson);

/** Nick (or first) name plus last name, recomputed on every save. */
export function displayNameOf(p: { firstName?: string | null; nickName?: string | null; lastName?: string | null }): string {
  return [p.nickName || p.firstName, p.lastName].filter(Boolean).join(' ').trim();
}

/** The API's person record from a row, field by field in the schema's order (`PersonRecords` relies on it). */
export function toPerson(row: PersonRecord): z.output<typeof Person> {
  return {
    id: row.id,
    churchId: row.churchId,
    userId: row.userId,
    name: {
      first: row.firstName,
      last: row.lastName,
      middle: row.middleName,
      nick: row.nickName,
      display: row.displayName,
      prefix: row.prefix,
      suffix: row.suffix,
    },
    contactInfo: {
      address1: row.address1,
      address2: row.address2,
      city: row.city,
      state: row.state,
      zip: row.zip,
      homePhone: row.homePhone,
      mobilePhone: row.mobilePhone,
      workPhone: row.workPhone,
      email: row.email,
    },
    birthDate: row.birthDate,
    gender: row.gender,
    maritalStatus: row.maritalStatus,
    anniversary: row.anniversary,
    membershipStatus: row.membershipStatus,
    householdId: row.householdId,
    householdRole: row.householdRole,
    photo: row.photo,
    photoUpdated: row.photoUpdated,
    optedOut: row.optedOut,
    campusId: row.campusId,
    nametagNotes: row.nametagNotes,
    school: row.school,
    grade: row.grade,
    conversationId: row.conversationId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The name-only record. */
export function toBasicPerson(row: Pick<PersonRow, 'id' | 'firstName' | 'lastName' | 'nickName' | 'displayName' | 'photo' | 'householdId' | 'householdRole'>) {
  return {
    id: row.id,
    name: { first: row.firstName, last: row.lastName, nick: row.nickName, display: row.displayName },
    photo: row.photo,
    householdId: row.householdId,
    householdRole: row.householdRole,
  };
}

/**
 * Column values of one accepted person: only the fields the client sent (an update leaves the rest alone).
 * `photo` is left out: a data URL must be stored first (see save.ts).
 */
export function toPersonValues(input: PersonInput): PersonValues {
  const n: Partial<NonNullable<PersonInput['name']>> = input.name ?? {};
  const c: Partial<NonNullable<PersonInput['contactInfo']>> = input.contactInfo ?? {};
  const pick = <T>(flat: T | undefined, nested: T | undefined) => (flat !== undefined ? flat : nested);
  const values: PersonValues = {
    firstName: pick(input.firstName, n.first),
    lastName: pick(input.lastName, n.last),
    middleName: pick(input.middleName, n.middle),
    nickName: pick(input.nickName, n.nick),
    prefix: pick(input.prefix, n.prefix),
    suffix: pick(input.suffix, n.suffix),
    address1: pick(input.address1, c.address1),
    address2: pick(input.address2, c.address2),
    city: pick(input.city, c.city),
    state: pick(input.state, c.state),
    zip: pick(input.zip, c.zip),
    homePhone: pick(input.homePhone, c.homePhone),
    mobilePhone: pick(input.mobilePhone, c.mobilePhone),
    workPhone: pick(input.workPhone, c.workPhone),
    email: pick(input.email, c.email),
    birthDate: input.birthDate,
    anniversary: input.anniversary,
    gender: input.gender,
    maritalStatus: input.maritalStatus,
    membershipStatus: input.membershipStatus,
    householdId: input.householdId,
    householdRole: input.householdRole,
    optedOut: input.optedOut,
    campusId: input.campusId,
    nametagNotes: input.nametagNotes,
    school: input.school,
    grade: input.grade,
    conversationId: input.conversationId,
  };
  for (const key of Object.keys(values) as Array<keyof PersonValues>) if (values[key] === undefined) delete values[key];
  return values;
}

/** Who is reading people: staff (People.View or People.Edit) see everyone; others see members only. */
export interface Viewer {
  staff: boolean;
  /** restrict lists to Member/Staff people who have not opted out */
  membersOnly: boolean;
  member: boolean;
}

export function viewerOf(auth: Claims): Viewer {
  const canView = hasPermission(auth, 'People.View');
  const staff = canView || hasPermission(auth, 'People.Edit');
  return { staff, membersOnly: !canView, member: isMember(auth) };
}
