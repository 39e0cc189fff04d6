import { batchedReads, callInternal, listenedEvents, membershipInternal, type InternalClient } from '@church/common';
import type { LinkedGroupData } from '../schemas';

// Everything attendance asks membership, one function per question. Every call goes through `callInternal` with
// its contract (`membershipInternal` of `@church/common`): the body is checked before it leaves and the answer
// parsed when it comes back; a membership that is briefly away (503) is passed on as 503 with its Retry-After, and
// any other failure (unreachable, a 5xx, a 4xx of membership's own, an answer of the wrong shape) is a 502 naming
// membership, never an empty or partial answer.

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
 * The people of a group with their names. The roster is kept and revalidated: membership answers 304 while the
 * church's people and groups are unchanged (the kept answer is parsed once, so the same array comes back).
 */
export function groupMembers(internal: InternalClient, churchId: string, groupId: string) {
  return callInternal(internal, membershipInternal.groupMembers, { churchId, groupId }, { revalidate: true });
}

/** Names of people by id (removed people keep theirs), in calls of up to 5,000 ids (membership's limit) sent together. */
export async function peopleBasic(internal: InternalClient, churchId: string, ids: string[]) {
  const chunks = Array.from({ length: Math.ceil(ids.length / 5000) }, (_, i) => ids.slice(i * 5000, (i + 1) * 5000));
  return (await Promise.all(chunks.map((chunk) => callInternal(internal, membershipInternal.peopleBasic, { churchId, ids: chunk })))).flat();
}

/**
 * `peopleFacts` narrowed to what check-in reads (each person's id and household), for the church's whole list:
 * the same route and body, an answer parsed into those two fields only (a big church's list is not copied whole).
 */
const householdFacts = {
  ...membershipInternal.peopleFacts,
  answer: membershipInternal.peopleFacts.answer.element.pick({ id: true, householdId: true }).array(),
};

/**
 * Live people of the church with their household: those among `ids` (checked against the whole contract), or
 * without `ids` the church's whole list (parsed into the two fields only).
 */
export function households(internal: InternalClient, churchId: string, ids?: string[]): Promise<Array<{ id: string; householdId: string | null }>> {
  return ids ? callInternal(internal, membershipInternal.peopleFacts, { churchId, ids }) : callInternal(internal, householdFacts, { churchId });
}

class VersionFailed {
  constructor(readonly error: unknown) {}
}

/**
 * Membership's data version of the church (`membershipInternal.version`: raised with every change to its
 * people, groups and members). Concurrent askers of a church share one call (`batchedReads`: a caller joins
 * the next call, never one already out, so what it learns was true after it asked: a person added or removed
 * before the request arrived is seen).
 */
const versions = batchedReads<InternalClient, string, string | VersionFailed>((internal, churchIds) =>
  Promise.all(
    churchIds.map((churchId) =>
      callInternal(internal, membershipInternal.version, { churchId }).then(
        (answer) => answer.version,
        (error: unknown) => new VersionFailed(error),
      ),
    ),
  ),
);

/** The church's people version as membership answers it now (see `versions`); a failed call throws its error. */
export async function peopleVersion(internal: InternalClient, churchId: string): Promise<string> {
  const answer = (await versions(internal, churchId)) ?? '0';
  if (answer instanceof VersionFailed) throw answer.error;
  return answer;
}

/**
 * The events the church listens for (its webhooks and workflow triggers), kept a few seconds per church by the
 * shared `listenedEvents`; `null` when membership cannot say (then every event is handed on).
 */
export function listenedBy(internal: InternalClient, churchId: string): Promise<ReadonlySet<string> | null> {
  return listenedEvents(internal, churchId);
}
