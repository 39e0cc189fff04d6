import { randomUUID } from 'node:crypto';
import { signedCall as signed, type TestApp } from '@church/common/testing';
import { forms, groupMembers, groups, households, people } from '../../src/db/schema';

type PersonInsert = Partial<typeof people.$inferInsert>;

/** A person inserted directly (no API), in a household of their own unless one is given. */
export async function addPerson(t: TestApp, churchId: string, values: PersonInsert = {}) {
  const id = values.id ?? randomUUID();
  let householdId = values.householdId;
  if (householdId === undefined) {
    householdId = randomUUID();
    await t.app.db.insert(households).values({ id: householdId, churchId, name: values.lastName ?? 'Doe' });
  }
  const firstName = values.firstName ?? 'Jane';
  const lastName = values.lastName ?? 'Doe';
  const [row] = await t.app.db
    .insert(people)
    .values({ membershipStatus: 'Member', displayName: `${firstName} ${lastName}`, householdRole: 'Head', ...values, firstName, lastName, id, churchId, householdId })
    .returning();
  return row!;
}

/** A form inserted directly (no API); its id. */
export async function addForm(t: TestApp, churchId: string, values: Partial<typeof forms.$inferInsert> = {}) {
  const id = randomUUID();
  await t.app.db.insert(forms).values({ id, churchId, name: `Form ${id.slice(0, 4)}`, ...values });
  return id;
}

export async function addGroup(t: TestApp, churchId: string, name: string, extra: Partial<typeof groups.$inferInsert> = {}) {
  const id = randomUUID();
  await t.app.db.insert(groups).values({ id, churchId, name, slug: `${name.toLowerCase().replace(/\W+/g, '-')}-${id.slice(0, 6)}`, ...extra });
  return id;
}

export async function addToGroup(t: TestApp, churchId: string, groupId: string, personId: string, joinDate = new Date()) {
  await t.app.db.insert(groupMembers).values({ id: randomUUID(), churchId, groupId, personId, joinDate });
}

/** A server-to-server call signed as the internal client signs it. */
export function signedCall(t: TestApp, url: string, body: unknown, secret?: string) {
  return signed(t.app, url, body, secret);
}
