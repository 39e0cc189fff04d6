import { z } from 'zod';
import { callInternal, HttpError, membershipInternal, providerFailed, type InternalClient, type PersonContact, type PersonFacts } from '@church/common';

// What content asks of membership, each through its typed contract (`callInternal`: the body checked, the answer
// parsed, a 503 passed on, anything else a 502 naming membership), except the church lookup by subdomain, for
// which membership has no internal contract yet (below).

/** A person of the church with the facts gates and registrations read (undefined when not the church's). */
export async function personFacts(internal: InternalClient, churchId: string, personId: string, requestId?: string): Promise<PersonFacts | undefined> {
  const facts = await callInternal(internal, membershipInternal.peopleFacts, { churchId, ids: [personId] }, { requestId });
  return facts.find((f) => f.id === personId);
}

/** The groups a person is a member of (none when membership does not know them in the church). */
export async function personGroupIds(internal: InternalClient, churchId: string, personId: string, requestId?: string): Promise<string[]> {
  return (await personFacts(internal, churchId, personId, requestId))?.groupIds ?? [];
}

/** Display names of people by id, in one call (removed people keep their names). */
export async function displayNamesOf(internal: InternalClient, churchId: string, ids: string[]): Promise<Map<string, string | null>> {
  const people = await callInternal(internal, membershipInternal.peopleBasic, { churchId, ids });
  return new Map(people.map((p) => [p.id, p.displayName]));
}

/** A person's contact data (address, names); undefined when not a live person of the church. */
export async function contactOf(internal: InternalClient, churchId: string, personId: string): Promise<PersonContact | undefined> {
  const [person] = await callInternal(internal, membershipInternal.contacts, { churchId, ids: [personId] });
  return person;
}

/** The church a subdomain names, as membership's public lookup answers it (the fields content reads). */
const LookedUpChurch = z.looseObject({ id: z.string().optional(), name: z.string().nullish(), subDomain: z.string().nullish() });
export type LookedUpChurch = z.output<typeof LookedUpChurch>;

/**
 * The church of a subdomain (the streaming page's preview), or null when membership knows none. Membership serves
 * this only as its public `GET /membership/churches/lookup`: no internal contract exists for it in
 * `@church/common` (a `membershipInternal.churchBySubDomain` would replace this call), so it is a signed GET with
 * its answer read here. Membership's own 4xx other than 404 is handed on; anything else is a 502 naming it.
 */
export async function churchBySubDomain(internal: InternalClient, subDomain: string, requestId?: string): Promise<LookedUpChurch | null> {
  let answer: unknown;
  try {
    answer = await internal.get('membership', `/membership/churches/lookup?subDomain=${encodeURIComponent(subDomain)}`, { requestId });
  } catch (err) {
    if (err instanceof HttpError && err.statusCode === 404) return null;
    if (err instanceof HttpError && err.statusCode < 500) throw err;
    throw providerFailed('Looking the church up in membership', err instanceof Error ? err.message : undefined);
  }
  const parsed = LookedUpChurch.safeParse(answer);
  return parsed.success ? parsed.data : null;
}
