import { callInternal, membershipInternal, type InternalClient, type PersonFacts } from '@church/common';

// What doing asks of membership, one typed call per shared contract (`callInternal`: the body checked, the answer
// parsed, membership's 503 passed on with its Retry-After, anything else a 502 naming membership).

export function membershipClient(internal: InternalClient) {
  return {
    /** the ids of the church's live groups (a ministry is a group), lower-case */
    groupIds: async (churchId: string) => new Set((await callInternal(internal, membershipInternal.groupsList, { churchId })).map((g) => g.id.toLowerCase())),
    /** the members of a group with their leader flag */
    groupMembers: (churchId: string, groupId: string) => callInternal(internal, membershipInternal.groupMembers, { churchId, groupId }),
    /** display names by person id */
    peopleBasic: async (churchId: string, ids: string[]) => (ids.length ? callInternal(internal, membershipInternal.peopleBasic, { churchId, ids }) : []),
    /** every live person of the church (or these ones) with the facts automations and workflow routes select on */
    peopleFacts: (churchId: string, ids?: string[]): Promise<PersonFacts[]> => callInternal(internal, membershipInternal.peopleFacts, { churchId, ...(ids ? { ids } : {}) }),
    /**
     * applies an approved directory update (or a workflow's `setField`) to the person; membership's refusal of the
     * changes (a 4xx about them) is passed on as it is
     */
    updatePerson: (churchId: string, personId: string, changes: Record<string, unknown>) =>
      callInternal(internal, membershipInternal.updatePerson, { churchId, personId, changes }, { passClientErrors: true }),
  };
}
export type MembershipClient = ReturnType<typeof membershipClient>;
