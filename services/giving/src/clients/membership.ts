import { callInternal, membershipInternal, type InternalClient } from '@church/common';

// What giving asks of membership, each through its typed contract (`callInternal`: the body checked, the answer
// parsed, a 503 passed on, anything else a 502 naming membership).

/** Names of people by id, 1000 per call (removed people keep their names in history). */
export async function peopleNames(internal: InternalClient, churchId: string, ids: string[]): Promise<Map<string, string | null>> {
  const names = new Map<string, string | null>();
  for (let i = 0; i < ids.length; i += 1000) {
    for (const p of await callInternal(internal, membershipInternal.peopleBasic, { churchId, ids: ids.slice(i, i + 1000) })) names.set(p.id, p.displayName);
  }
  return names;
}

/** Of these ids, the people of the church (membership answers only its own church's people). */
export async function knownPeople(internal: InternalClient, churchId: string, ids: string[]): Promise<Set<string>> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  return new Set(unique.length ? (await peopleNames(internal, churchId, unique)).keys() : []);
}

/** The donors' addresses and names, in one call. */
export async function contactsOf(internal: InternalClient, churchId: string, ids: string[]) {
  if (!ids.length) return new Map<string, { email: string | null; displayName: string | null }>();
  const people = await callInternal(internal, membershipInternal.contacts, { churchId, ids });
  return new Map(people.map((p) => [p.id, { email: p.email ?? null, displayName: p.displayName ?? null }]));
}

