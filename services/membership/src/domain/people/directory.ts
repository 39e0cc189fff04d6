import { z } from 'zod';
import { notFound, unauthorized, type Actor, type DbOrTx } from '@church/common';
import { directoryPeople, directorySetting, groupmatesOf, preferencesByPerson, preferencesOf, shareAGroup, statusOf, upsertPreferences, type PreferencesRow } from '../../repos/directory';
import { personById, type PersonRecord } from '../../repos/people';
import { ContactInfo, toBasicPerson, viewerOf, type Viewer } from './person';

/** Who may open the directory (church setting `directoryVisibility`). */
export const DIRECTORY_LEVELS = ['Staff', 'Members', 'Regular Attendees', 'Everyone'] as const;
export type DirectoryLevel = (typeof DIRECTORY_LEVELS)[number];
export const DEFAULT_DIRECTORY_LEVEL: DirectoryLevel = 'Members';

/** Who may see one of a person's details in the directory. */
export const VISIBILITY = ['everyone', 'members', 'groups', 'none'] as const;
export type Visibility = (typeof VISIBILITY)[number];
/** A person without saved preferences shows their details to members. */
export const DEFAULT_VISIBILITY: Visibility = 'members';

export const PreferencesSave = z.object({
  address: z.enum(VISIBILITY).optional(),
  phoneNumber: z.enum(VISIBILITY).optional(),
  email: z.enum(VISIBILITY).optional(),
});
export const Preferences = z.object({
  id: z.string().nullish(),
  personId: z.string(),
  address: z.string(),
  phoneNumber: z.string(),
  email: z.string(),
});

/** The person's preferences with defaults filled in. */
export function withDefaults(personId: string, row?: Partial<PreferencesRow>) {
  return {
    id: row?.id ?? null,
    personId,
    address: row?.address ?? DEFAULT_VISIBILITY,
    phoneNumber: row?.phoneNumber ?? DEFAULT_VISIBILITY,
    email: row?.email ?? DEFAULT_VISIBILITY,
  };
}

/** Saves (one row per person) only the preferences given. */
export async function savePreferences(db: DbOrTx, churchId: string, personId: string, input: z.output<typeof PreferencesSave>): Promise<PreferencesRow> {
  const values = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  const { id: _id, ...initial } = withDefaults(personId, values);
  return upsertPreferences(db, churchId, initial, values);
}

export async function directoryLevel(db: DbOrTx, churchId: string): Promise<DirectoryLevel> {
  const value = await directorySetting(db, churchId);
  return DIRECTORY_LEVELS.find((l) => l.toLowerCase() === value?.trim().toLowerCase()) ?? DEFAULT_DIRECTORY_LEVEL;
}

/** Whether a caller may open the directory at this level: staff always; `Everyone` means any user. */
export function mayOpenDirectory(level: DirectoryLevel, viewer: Viewer, status: string | undefined): boolean {
  if (viewer.staff || level === 'Everyone') return true;
  const member = viewer.member || status === 'Member' || status === 'Staff';
  if (level === 'Members') return member;
  if (level === 'Regular Attendees') return member || status === 'Regular Attendee';
  return false;
}

/**
 * Whose entries the whole directory (`GET /people/directory/all`) lists to a caller who is not staff: the statuses
 * the church's level opens it to (as ChurchApps' Api lists them), never opted-out people. Staff see everyone.
 */
export const DIRECTORY_LISTED: Record<DirectoryLevel, readonly string[]> = {
  Staff: ['Staff'],
  Members: ['Member', 'Staff'],
  'Regular Attendees': ['Regular Attendee', 'Member', 'Staff'],
  Everyone: ['Visitor', 'Regular Attendee', 'Member', 'Staff'],
};

export interface Audience {
  /** staff and the person themself see everything */
  full: boolean;
  member: boolean;
  sharesGroup: boolean;
}

function shows(v: string | null | undefined, audience: Audience): boolean {
  if (audience.full) return true;
  const level = (VISIBILITY as readonly string[]).includes(v ?? '') ? (v as Visibility) : DEFAULT_VISIBILITY;
  if (level === 'everyone') return true;
  if (level === 'members') return audience.member;
  if (level === 'groups') return audience.sharesGroup;
  return false;
}

/** A person as the directory shows them: name and photo always, contact details as their preferences allow. */
export function directoryEntry(p: PersonRecord, prefs: Partial<PreferencesRow> | undefined, audience: Audience) {
  const address = shows(prefs?.address, audience);
  const phone = shows(prefs?.phoneNumber, audience);
  const email = shows(prefs?.email, audience);
  return {
    ...toBasicPerson(p),
    contactInfo: {
      ...(address ? { address1: p.address1, address2: p.address2, city: p.city, state: p.state, zip: p.zip } : {}),
      ...(phone ? { homePhone: p.homePhone, mobilePhone: p.mobilePhone, workPhone: p.workPhone } : {}),
      ...(email ? { email: p.email } : {}),
    },
  };
}

export const DirectoryPerson = z.object({
  id: z.string(),
  name: z.object({ first: z.string().nullish(), last: z.string().nullish(), nick: z.string().nullish(), display: z.string().nullish() }),
  photo: z.string().nullish(),
  householdId: z.string().nullish(),
  householdRole: z.string().nullish(),
  contactInfo: ContactInfo,
});

/**
 * B1App's member directory (DirectoryMasterPanel, DirectorySearch): every person the church's level lists to the
 * caller, by name, each as `directoryOf` shows them; 401 when the directory is not open to the caller.
 */
export async function wholeDirectory(db: DbOrTx, actor: Actor) {
  const { churchId, personId } = actor;
  const viewer = viewerOf(actor);
  const status = await statusOf(db, churchId, personId);
  const level = await directoryLevel(db, churchId);
  if (!mayOpenDirectory(level, viewer, status)) throw unauthorized('The directory is not open to you');
  const listed = await directoryPeople(db, churchId, viewer.staff ? null : DIRECTORY_LISTED[level]);
  const [prefs, groupmates] = await Promise.all([
    preferencesByPerson(db, churchId, listed.map((p) => p.id)),
    personId ? groupmatesOf(db, churchId, personId) : new Set<string>(),
  ]);
  const member = viewer.member || status === 'Member' || status === 'Staff';
  return listed.map((p) => directoryEntry(p, prefs.get(p.id), { full: viewer.staff || p.id === personId, member, sharesGroup: groupmates.has(p.id) }));
}

/** One person's directory entry as the caller may see it (an opted-out person only to staff and themself: else 404). */
export async function directoryOf(db: DbOrTx, actor: Actor, id: string) {
  const { churchId, personId } = actor;
  const viewer = viewerOf(actor);
  const status = await statusOf(db, churchId, personId);
  if (!mayOpenDirectory(await directoryLevel(db, churchId), viewer, status)) throw unauthorized('The directory is not open to you');
  const person = await personById(db, churchId, id);
  if (!person || (person.optedOut && !viewer.staff && person.id !== personId)) throw notFound('Person');
  const self = person.id === personId;
  const audience = {
    full: viewer.staff || self,
    member: viewer.member || status === 'Member' || status === 'Staff',
    sharesGroup: Boolean(personId) && !self && (await shareAGroup(db, churchId, personId!, person.id)),
  };
  return directoryEntry(person, await preferencesOf(db, churchId, person.id), audience);
}
