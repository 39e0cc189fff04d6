import { randomUUID } from 'node:crypto';
import { PERMISSIONS } from '@church/auth';
import type { Db, DbOrTx } from '@church/common';
import { deleteChurchAndData, userIdsOfChurch, inactiveChurches, insertChurch, takenSubDomains, upsertUserChurch, userCounts, type ChurchRow } from '../repos/churches';
import { addRoleMember, insertRole, insertRolePermissions, otherRoleMembers } from '../repos/roles';
import type { UserRow } from '../repos/users';
import { clock } from './clock';
import { countPeople, insertPersonForUser } from '../repos/people-links';

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
