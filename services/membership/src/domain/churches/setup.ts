import { randomUUID } from 'node:crypto';
import { PERMISSIONS, isServerAdmin } from '@church/auth';
import { badRequest, conflict, notFound, unauthorized, type Actor, type Db, type DbOrTx, type ServiceDeps } from '@church/common';
import {
  deleteChurchAndData,
  findChurch,
  findChurchBySubDomain,
  findUserChurch,
  userIdsOfChurch,
  inactiveChurches,
  insertChurch,
  takenSubDomains,
  touchChurch,
  updateChurch,
  upsertUserChurch,
  userCounts,
  type ChurchRow,
} from '../../repos/churches';
import { personByEmail, updatePerson } from '../../repos/people';
import { addRoleMember, insertRole, insertRolePermissions, otherRoleMembers } from '../../repos/roles';
import { findUserById, type UserRow } from '../../repos/users';
import { clock } from '../clock';
import { countPeople, insertPersonForUser, personOfUser } from '../../repos/people-links';
import { loginResponse, selectedChurch } from '../login';

export const DOMAIN_ADMINS = 'Domain Admins';
export const ALL_MEMBERS = 'All Members';
/** What every signed-in person of a new church may do (NOTES: plain members check their household in). */
export const EVERYONE_PERMISSIONS = [
  { apiName: 'MembershipApi', contentType: 'People', action: 'Edit Self' },
  { apiName: 'AttendanceApi', contentType: 'Attendance', action: 'Checkin' },
];
/** Churches untouched this long, used by nobody but their creator, are abandoned. */
export const ABANDONED_DAYS = 7;

export interface NewChurch {
  name: string;
  subDomain?: string | null;
  address1: string;
  address2?: string | null;
  city: string;
  state: string;
  zip: string;
  country: string;
}

/** `First Baptist Church!` → `firstbaptistchurch`; subdomains are DNS labels. */
export function subDomainFrom(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]/g, '')
    .toLowerCase()
    .slice(0, 40);
  return base || 'church';
}

/** The base, or the base with the smallest free number after it. */
async function freeSubDomain(db: DbOrTx, base: string): Promise<string> {
  for (let start = 1; ; start += 50) {
    const candidates = start === 1 ? [base, ...numbered(base, 2, 50)] : numbered(base, start, start + 49);
    const taken = await takenSubDomains(db, candidates);
    const free = candidates.find((c) => !taken.has(c));
    if (free) return free;
  }
}
// A subDomain is a DNS label: at most 63 characters, the number included.
const numbered = (base: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${base.slice(0, 63 - String(from + i).length).replace(/-+$/, '')}${from + i}`);

/**
 * Registers a church for its creator (under a free subDomain): the church, a "Domain Admins" role with every permission (creator in
 * it), an "All Members" role with People.View Members, the Everyone permissions, a Staff person for the
 * creator and their user-church link. One transaction.
 */
export async function createChurch(db: Db, user: UserRow, input: NewChurch): Promise<ChurchRow> {
  return db.transaction(async (tx) => {
    // A chosen subDomain that is taken is numbered like one made from the name (`grace` → `grace2`): the apps'
    // register form suggests one from the name and expects a church back.
    const subDomain = await freeSubDomain(tx, input.subDomain ? input.subDomain.toLowerCase() : subDomainFrom(input.name));
    const now = clock.now();
    const church = await insertChurch(tx, { id: randomUUID(), ...input, subDomain, lastActivity: now });
    const admins = await insertRole(tx, church.id, DOMAIN_ADMINS);
    const members = await insertRole(tx, church.id, ALL_MEMBERS);
    await insertRolePermissions(tx, [
      ...PERMISSIONS.map((p) => ({ churchId: church.id, roleId: admins.id, apiName: p.apiName, contentType: p.contentType, action: p.action })),
      { churchId: church.id, roleId: members.id, apiName: 'MembershipApi', contentType: 'People', action: 'View Members' },
      ...EVERYONE_PERMISSIONS.map((p) => ({ churchId: church.id, roleId: null, ...p })),
    ]);
    await addRoleMember(tx, { churchId: church.id, roleId: admins.id, userId: user.id, addedBy: user.id });
    const person = await insertPersonForUser(tx, church.id, user, 'Staff');
    await upsertUserChurch(tx, { userId: user.id, churchId: church.id, personId: person.id, lastAccessed: now });
    return church;
  });
}

/**
 * Deletes churches nobody uses: no activity for 7+ days, at most one linked user, no role member besides that
 * user and at most one person (the creator's). Every church-scoped row of such a church goes with it, in one
 * transaction per church (its domains too, so their names are free again).
 */
export async function deleteAbandoned(db: Db): Promise<string[]> {
  const before = new Date(clock.now().getTime() - ABANDONED_DAYS * 24 * 3600 * 1000);
  const candidates = await inactiveChurches(db, before);
  const counts = await userCounts(db, candidates.map((c) => c.id));
  const deleted: string[] = [];
  for (const church of candidates) {
    if ((counts.get(church.id) ?? 0) > 1) continue;
    await db.transaction(async (tx) => {
      const [link] = await userIdsOfChurch(tx, church.id);
      if ((await otherRoleMembers(tx, church.id, link ?? null)) > 0) return;
      if ((await countPeople(tx, church.id, 2)) > 1) return;
      await deleteChurchAndData(tx, church.id);
      deleted.push(church.id);
    });
  }
  return deleted;
}

/** Edits the caller's own church (only the token's: a batch naming another church fails whole with 404). */
export function updateOwnChurch(db: Db, actor: Actor, items: Array<Partial<Omit<ChurchRow, 'id'>> & { id?: string; subDomain?: string | null }>): Promise<ChurchRow[]> {
  return db.transaction(async (tx) => {
    const out = [];
    for (const { id = actor.churchId, ...values } of items) {
      if (id !== actor.churchId) throw notFound('Church');
      if (values.subDomain) {
        const holder = await findChurchBySubDomain(tx, values.subDomain);
        if (holder && holder.id !== id) throw conflict('This subDomain is taken', 'subDomain');
      }
      const row = await updateChurch(tx, id, values);
      if (!row) throw notFound('Church');
      out.push(row);
    }
    return out;
  });
}

/**
 * Switching church: a church the user has no link to is joined with the Everyone permissions and their person
 * there: the one with the account's address when the address is proved (the owner followed a link or code mailed
 * to it) and no other user holds that person, else a new guest person. Answers the chosen church as the apps read it.
 */
export async function selectChurch(db: Db, deps: ServiceDeps, actor: Actor, which: { churchId?: string; subDomain?: string }) {
  const { churchId, subDomain } = which;
  if (!churchId && !subDomain) throw badRequest('churchId', 'churchId or subDomain is required');
  const church = churchId ? await findChurch(db, churchId) : await findChurchBySubDomain(db, subDomain!);
  if (!church || (church.archivedDate && !isServerAdmin(actor))) throw notFound('Church');
  const user = await findUserById(db, actor.id);
  if (!user) throw unauthorized('User no longer exists');
  const now = clock.now();
  await db.transaction(async (tx) => {
    const link = await findUserChurch(tx, user.id, church.id);
    let personId = link?.personId ?? (await personOfUser(tx, church.id, user.id))?.id ?? null;
    if (!personId && user.emailVerified) {
      const byEmail = await personByEmail(tx, church.id, user.email);
      if (byEmail && !byEmail.userId) personId = (await updatePerson(tx, church.id, byEmail.id, { userId: user.id }))!.id;
    }
    if (!personId) personId = (await insertPersonForUser(tx, church.id, user, 'Guest')).id;
    await upsertUserChurch(tx, { userId: user.id, churchId: church.id, personId, lastAccessed: now });
    await touchChurch(tx, church.id, now);
  });
  return selectedChurch(await loginResponse(db, deps, user, { churchId: church.id }));
}
