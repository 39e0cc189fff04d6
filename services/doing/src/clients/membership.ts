import { z } from 'zod';
import { HttpError, membershipInternal, providerFailed, type InternalClient, type PersonFacts } from '@church/common';

// The one wrapper around membership's internal routes: answers are parsed with the shared contracts, and any
// failure (membership away, a bad answer) is a 502 here, so callers never see a raw transport error.

const GroupMember = z.object({ personId: z.string(), displayName: z.string().nullable().optional(), leader: z.boolean().optional() });
const BasicPerson = z.object({ id: z.string(), displayName: z.string().nullable().optional() });

async function callMembership<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof HttpError && err.statusCode < 500) throw err;
    throw providerFailed(`membership (${what})`, err instanceof HttpError ? err.message : undefined);
  }
}

export function membershipClient(internal: InternalClient) {
  return {
    /** the members of a group with their leader flag */
    groupMembers: (churchId: string, groupId: string) =>
      callMembership('group members', async () => z.array(GroupMember).parse(await internal.post('membership', '/membership/internal/groups/members', { churchId, groupId }))),
    /** display names by person id */
    peopleBasic: (churchId: string, ids: string[]) =>
      callMembership('people', async () => (ids.length ? z.array(BasicPerson).parse(await internal.post('membership', '/membership/internal/people/basic', { churchId, ids })) : [])),
    /** every live person of the church (or these ones) with the facts automations select on */
    peopleFacts: (churchId: string, ids?: string[]): Promise<PersonFacts[]> =>
      callMembership('people facts', async () => membershipInternal.peopleFacts.answer.parse(await internal.post('membership', membershipInternal.peopleFacts.path, { churchId, ...(ids ? { ids } : {}) }))),
    /** applies an approved directory update to the person */
    updatePerson: (churchId: string, personId: string, changes: Record<string, unknown>) =>
      callMembership('update person', async () => membershipInternal.updatePerson.answer.parse(await internal.post('membership', membershipInternal.updatePerson.path, { churchId, personId, changes }))),
  };
}
export type MembershipClient = ReturnType<typeof membershipClient>;
