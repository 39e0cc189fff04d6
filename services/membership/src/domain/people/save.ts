import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { HttpError, REMOTE, badRequest, decodeImage, foreignReferences, notFound, reportChanges, rowsByIds, unauthorized, validationFailed, type Actor, type Db, type DbOrTx, type ErrorItem, type InternalClient, type References, type Storage, type Tx } from '@church/common';
import type { MembershipDeps } from '../../deps';
import { report as reportTo, type Reporter } from '../report';
import { isWebUrl } from '../../schemas/extras';
import { households, people } from '../../db/schema';
import { churchExists, findChurch, linkUserToPerson, linkedPersonOf } from '../../repos/churches';
import { existingHouseholdIds, insertHousehold, insertHouseholds } from '../../repos/households';
import { insertPeople, insertPerson, peopleInHousehold, personByEmail, personById, personOfUser, updatePerson, type PersonRecord, type PersonRow, type PersonValues } from '../../repos/people';
import { findSetting } from '../../repos/settings';
import { findUserById } from '../../repos/users';
import { PersonSave, displayNameOf, toPerson, toPersonValues, type PersonInput } from './person';

/**
 * Fields a caller holding only `People.Edit Self` may not change on their own record (the notes conversation is
 * staff's notes about them).
 */
const PRIVILEGED_FIELDS: Array<keyof PersonValues> = ['membershipStatus', 'householdId', 'householdRole', 'campusId', 'conversationId'];

/** The records a person's fields name: a household of the church, and a campus of the church (attendance's). */
export const PERSON_REFERENCES = { householdId: households, campusId: REMOTE.campuses, conversationId: REMOTE.conversations } satisfies References;

/**
 * The person fields of `items` that name no record of the church (`param` names each item's field). Asks attendance
 * about campuses: call it before any transaction opens.
 */
export function personReferenceErrors(
  db: DbOrTx,
  internal: InternalClient,
  churchId: string,
  items: Array<Record<string, unknown>>,
  param: (i: number, field: string) => string = (_i, field) => field,
): Promise<ErrorItem[]> {
  return foreignReferences(db, internal, churchId, items, PERSON_REFERENCES, param);
}

export interface SaveContext {
  /** a transaction when the save is part of a larger change (it then runs in it) */
  db: Db | Tx;
  storage: Storage;
  churchId: string;
  /**
   * How the household and campus the items name are checked to be the church's: through this client (the save
   * asks attendance before its transaction opens), or `'checked'` when the caller did so (`personReferenceErrors`)
   * before the transaction it passes as `db`, since another module is never asked inside one.
   */
  references: InternalClient | 'checked';
  /** the body field an error names, for item `i` (default: the field alone, as for a single person) */
  param?: (i: number, field: string) => string;
  /** the caller holds only People.Edit Self: privileged fields are ignored */
  selfOnly?: boolean;
  /** reports the saves to the audit log and webhooks (`person.created` / `person.updated`) in their transaction */
  report?: Reporter;
}

/** A person's change as the audit log and webhooks get it (the webhook payload is the person record). */
export function personChange(churchId: string, before: PersonRow | undefined, after: PersonRow | undefined, action?: string) {
  const verb = action ?? (!before ? 'created' : !after || after.removed ? 'destroyed' : 'updated');
  const row = (after ?? before)!;
  return {
    churchId,
    entityType: 'person',
    entityId: row.id,
    action: verb,
    event: verb === 'created' || verb === 'updated' || verb === 'destroyed' ? `person.${verb}` : undefined,
    before: before as Record<string, unknown> | undefined,
    after: verb === 'destroyed' ? undefined : (after as Record<string, unknown> | undefined),
    data: verb === 'destroyed' || !after ? { id: row.id } : toPerson(after),
  };
}

/**
 * Batch save of people: all items are checked first (ids of the church, households of the church, photos
 * decodable), then inserted and updated in one transaction. A person left without a household gets a new
 * one named after them, and `displayName` is recomputed from the merged record.
 */
export async function savePeople(ctx: SaveContext, items: PersonInput[]): Promise<PersonRow[]> {
  const { db, churchId } = ctx;
  const ids = items.map((i) => i.id).filter((id): id is string => Boolean(id));
  const existing = new Map((await rowsByIds(db, people, churchId, ids)).map((r) => [r.id as string, r as PersonRow]));
  if (ids.some((id) => !existing.has(id))) throw notFound('Person');

  const values = items.map((item) => {
    const v = toPersonValues(item);
    if (ctx.selfOnly) for (const key of PRIVILEGED_FIELDS) delete v[key];
    return v;
  });
  if (ctx.references !== 'checked') {
    // Only the references an item changes: a record posted back as loaded keeps a campus attendance has since removed.
    const changed = values.map((v, i) => {
      const before = items[i]!.id ? existing.get(items[i]!.id!) : undefined;
      return Object.fromEntries(Object.keys(PERSON_REFERENCES).flatMap((field) => {
        const value = v[field as keyof PersonValues];
        return before && before[field as keyof PersonRow] === value ? [] : [[field, value]];
      }));
    });
    const errors = await personReferenceErrors(db, ctx.references, churchId, changed, ctx.param);
    if (errors.length) throw validationFailed(errors);
  }

  // Photos are stored before the transaction, under ids fixed now; a rolled-back save leaves at most an
  // orphan file that the person's next photo overwrites.
  const newIds = items.map((item) => item.id ?? randomUUID());
  for (const [i, item] of items.entries()) {
    if (item.photo === undefined) continue;
    Object.assign(values[i]!, await photoValues(ctx, newIds[i]!, item.photo));
  }

  // Set-based: one multi-row insert per chunk of new households and of new people (a batch of 5,000 is a few
  // statements, not 10,000), updates one by one; answered in input order.
  const newHouseholds: Array<{ id: string; churchId: string; name: string | null }> = [];
  for (const [i, item] of items.entries()) {
    const before = item.id ? existing.get(item.id) : undefined;
    const v = values[i]!;
    const merged = { ...before, ...v };
    v.displayName = displayNameOf(merged);
    if (!merged.householdId) {
      const household = { id: randomUUID(), churchId, name: merged.lastName || v.displayName || null };
      newHouseholds.push(household);
      v.householdId = household.id;
      v.householdRole = merged.householdRole ?? 'Head';
    }
  }
  const run = async (tx: Tx) => {
    await insertHouseholds(tx, newHouseholds);
    const fresh = items.flatMap((item, i) => (item.id ? [] : [{ ...values[i]!, id: newIds[i]! }]));
    const inserted = new Map((await insertPeople(tx, churchId, fresh)).map((row) => [row.id, row]));
    const saved: PersonRow[] = [];
    for (const [i, item] of items.entries()) {
      saved.push(item.id ? (await updatePerson(tx, churchId, item.id, values[i]!))! : inserted.get(newIds[i]!)!);
    }
    await reportTo(ctx.report, tx, saved.map((row, i) => personChange(churchId, items[i]!.id ? existing.get(items[i]!.id!) : undefined, row)));
    return saved;
  };
  return 'rollback' in db ? run(db) : (db as Db).transaction(run);
}

/** `photo` column values: a data URL is stored (`<churchId>/people/<personId>.<ext>`), a URL or null kept. */
async function photoValues(ctx: SaveContext, personId: string, photo: string | null): Promise<PersonValues> {
  if (photo === null || photo === '') return { photo: null, photoUpdated: new Date() };
  if (!photo.startsWith('data:')) {
    if (photo.length > 2000 || !isWebUrl(photo.trim())) throw badRequest('photo', 'photo must be an http(s) URL or a base64 data URL');
    return { photo: photo.trim() };
  }
  // Only raster images, told by their bytes (PNG, JPEG, GIF, WebP, at most 5 MB); the stored type and extension
  // come from the bytes, never from the declared type (`decodeImage` in @church/common).
  const decoded = decodeImage(photo, 'photo');
  const url = await ctx.storage.put(`${ctx.churchId}/people/${personId}.${decoded.extension}`, decoded.body, decoded.contentType);
  return { photo: url, photoUpdated: new Date() };
}

/**
 * Household assignment: the listed people join the household with their roles; people who were in it
 * and are not listed move to a new household of their own (everyone keeps a household).
 */
export async function assignHousehold(db: Db, churchId: string, householdId: string, members: Array<{ personId: string; householdRole?: string | null }>): Promise<PersonRecord[]> {
  const known = await existingHouseholdIds(db, churchId, [householdId]);
  if (!known.has(householdId)) throw notFound('Household');
  const ids = [...new Set(members.map((m) => m.personId))];
  const found = await rowsByIds(db, people, churchId, ids);
  if (found.length !== ids.length) throw notFound('Person');
  return db.transaction(async (tx) => {
    const listed = new Set(ids);
    for (const m of members) await updatePerson(tx, churchId, m.personId, { householdId, householdRole: m.householdRole ?? null });
    const current = await peopleInHousehold(tx, churchId, householdId);
    for (const left of current.filter((p) => !listed.has(p.id))) {
      const own = await insertHousehold(tx, churchId, left.lastName || left.displayName);
      await updatePerson(tx, churchId, left.id, { householdId: own.id, householdRole: 'Head' });
    }
    return peopleInHousehold(tx, churchId, householdId);
  });
}

/** A new Guest person with their own household (public loadOrCreate, claim). */
export async function createGuest(db: DbOrTx, churchId: string, p: { email: string; firstName?: string | null; lastName?: string | null; userId?: string }, reporter?: Reporter): Promise<PersonRow> {
  const values: PersonValues = {
    firstName: p.firstName || null,
    lastName: p.lastName || null,
    email: p.email,
    membershipStatus: 'Guest',
    userId: p.userId ?? null,
  };
  values.displayName = displayNameOf(values) || p.email;
  const household = await insertHousehold(db, churchId, values.lastName || values.displayName || null);
  const person = await insertPerson(db, churchId, { ...values, householdId: household.id, householdRole: 'Head' });
  await reportTo(reporter, db, [
    { churchId, entityType: 'household', entityId: household.id, action: 'created', event: 'household.created', after: { name: household.name }, data: household },
    personChange(churchId, undefined, person),
  ]);
  return person;
}

/** The church's person with this email (case-insensitive), or a new Guest person. */
export async function loadOrCreatePerson(db: Db, churchId: string, p: { email: string; firstName?: string | null; lastName?: string | null }, reporter?: Reporter): Promise<PersonRow> {
  const found = await personByEmail(db, churchId, p.email);
  if (found) return found;
  return db.transaction((tx) => createGuest(tx, churchId, p, reporter));
}

export interface Claimant {
  userId: string;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
}

/**
 * Links a user to their person at a church: the person already linked, else the person with the account's
 * email when that address is verified (the owner followed a link mailed to it: an unverified address could
 * be anyone's), else a new Guest person. The user-church record then points at that person.
 */
export async function claimPerson(db: Db, churchId: string, user: Claimant, reporter?: Reporter): Promise<PersonRecord> {
  if (!(await churchExists(db, churchId))) throw notFound('Church');
  return db.transaction(async (tx) => {
    const link = await linkedPersonOf(tx, churchId, user.userId);
    const account = await findUserById(tx, user.userId);
    if (!account) throw unauthorized('User no longer exists');
    let person = link?.personId ? await personById(tx, churchId, link.personId) : undefined;
    person ??= await personOfUser(tx, churchId, user.userId);
    if (!person && account.emailVerified) {
      const byEmail = await personByEmail(tx, churchId, account.email);
      // A record already claimed by another user is theirs, not the caller's.
      if (byEmail && (!byEmail.userId || byEmail.userId === user.userId)) person = byEmail;
    }
    if (!person) {
      person = await createGuest(tx, churchId, {
        email: account.email,
        firstName: user.firstName ?? account.firstName,
        lastName: user.lastName ?? account.lastName,
        userId: user.userId,
      }, reporter);
    }
    if (person.userId !== user.userId) person = (await updatePerson(tx, churchId, person.id, { userId: user.userId }))!;
    await linkUserToPerson(tx, churchId, user.userId, person.id);
    return person;
  });
}

/** The church setting (B1Admin's guest registration switch) that opens `guest-register`. */
export const GUEST_REGISTRATION_SETTING = 'enableQRGuestRegistration';

/**
 * B1App's guest registration (a QR code at the door): a household of guests, the first its head, for a live church
 * that switched it on (setting `enableQRGuestRegistration` = "true"; else 403); answers names and ids only.
 */
export async function registerGuests(
  deps: Pick<MembershipDeps, 'db' | 'module' | 'queue'>,
  actor: Actor,
  churchId: string,
  members: Array<{ firstName: string; lastName: string; email?: string; phone?: string }>,
) {
  const church = await findChurch(deps.db, churchId);
  if (!church || church.archivedDate) throw notFound('Church');
  const setting = await findSetting(deps.db, churchId, GUEST_REGISTRATION_SETTING);
  if (setting?.value !== 'true') throw new HttpError(403, [{ msg: 'This church does not take guest registrations' }]);
  return deps.db.transaction(async (tx) => {
    const household = await insertHousehold(tx, churchId, members[0]!.lastName);
    const rows = await insertPeople(
      tx,
      churchId,
      members.map((m, i) => ({
        id: randomUUID(),
        firstName: m.firstName,
        lastName: m.lastName,
        displayName: displayNameOf(m),
        email: m.email ?? null,
        mobilePhone: m.phone ?? null,
        membershipStatus: 'Guest',
        householdId: household.id,
        householdRole: i === 0 ? 'Head' : 'Other',
      })),
    );
    await reportChanges(
      deps,
      [
        { churchId, entityType: 'household', entityId: household.id, action: 'created', event: 'household.created', after: { name: household.name }, data: household },
        ...rows.map((row) => personChange(churchId, undefined, row)),
      ],
      { req: actor, tx },
    );
    return { householdId: household.id, people: rows.map((p) => ({ id: p.id, name: { first: p.firstName, last: p.lastName } })) };
  });
}

/**
 * Another module changes a person (`membershipInternal.updatePerson`): the same save as `POST /membership/people`
 * (displayName recomputed, photos stored the same way), with every field a People.Edit holder may change; errors
 * name the field under `changes`.
 */
export async function updatePersonFor(deps: Pick<MembershipDeps, 'db' | 'module' | 'queue' | 'storage' | 'internal'>, churchId: string, personId: string, changes: unknown): Promise<{ id: string }> {
  const parsed = PersonSave.omit({ id: true }).safeParse(changes);
  if (!parsed.success) throw validationFailed(parsed.error.issues.map((i: z.core.$ZodIssue) => ({ msg: i.message, param: ['changes', ...i.path].join('.'), location: 'body' })));
  try {
    const [saved] = await savePeople({ db: deps.db, storage: deps.storage, churchId, references: deps.internal, report: { deps } }, [{ ...parsed.data, id: personId }]);
    return { id: saved!.id };
  } catch (err) {
    // the save names a field of the person (`photo`, `householdId`); here it is a field of `changes`
    if (err instanceof HttpError && err.statusCode === 400) throw validationFailed(err.errors.map((e) => (e.param ? { ...e, param: `changes.${e.param}` } : e)));
    throw err;
  }
}
