import { callInternal, membershipInternal, type InternalClient } from '@church/common';
import type { LinkedGroupData } from '../schemas';

// Every call to membership goes through `callInternal` with its contract (`membershipInternal` of `@church/common`):
// the body is checked before it leaves and the answer parsed when it comes back; a membership that is briefly away
// (503) is passed on as 503 with its Retry-After, and any other failure (unreachable, a 5xx, a 4xx of membership's
// own, an answer of the wrong shape) is a 502 naming membership, never an empty or partial answer.

/**
 * Fills in linked groups (stored here as ids) with membership's data, for `?include=groups` and the place
 * tree: one call for the church's group list, kept and revalidated (304 while its groups are unchanged; the kept
 * answer is parsed once). Membership answers whole group records; the response schema keeps `LinkedGroup`'s
 * fields. Groups membership no longer has (removed there, still linked here) are left out.
 */
export async function groupFiller(internal: InternalClient, churchId: string) {
  const list = await callInternal(internal, membershipInternal.groupsList, { churchId }, { revalidate: true });
  const byId = new Map(list.map((group) => [group.id, group as unknown as LinkedGroupData]));
  return (links: Array<{ id: string }>): LinkedGroupData[] => links.flatMap(({ id }) => byId.get(id) ?? []);
}

/**
 * `peopleFacts` narrowed to what check-in reads (each person's id and household), for the church's whole list:
 * the same route and body, an answer parsed into those two fields only (a big church's list is not copied whole).
 */
export const householdFacts = {
  ...membershipInternal.peopleFacts,
  answer: membershipInternal.peopleFacts.answer.element.pick({ id: true, householdId: true }).array(),
};
