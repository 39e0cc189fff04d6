import { z } from 'zod';
import { DELIVERY_RETRIES, jobContract } from '../queue';
import { callInternal } from './call';
import type { InternalClient } from '../internal';

/**
 * Membership's internal routes other modules call (signed, `deps.internal.post('membership', path, body)`).
 * Caller and callee share these zod contracts: the callee validates `body` and serializes `answer`.
 */
const Uuid = z.uuid();
const PersonContact = z.object({
  id: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  displayName: z.string().nullable(),
  email: z.string().nullable(),
  mobilePhone: z.string().nullable(),
  optedOut: z.boolean(),
});
const PersonFacts = PersonContact.extend({
  birthDate: z.string().nullable(),
  anniversary: z.string().nullable(),
  gender: z.string().nullable(),
  maritalStatus: z.string().nullable(),
  membershipStatus: z.string().nullable(),
  campusId: z.string().nullable(),
  householdId: z.string().nullable(),
  /** the groups the person is a member of (not removed) */
  groupIds: z.array(z.string()),
  leaderGroupIds: z.array(z.string()),
});

const membershipRoutes = {
  /** the church's name and address parts for emails and receipts */
  church: {
    path: '/membership/internal/church',
    body: z.object({ churchId: Uuid }),
    answer: z.object({ id: z.string(), name: z.string(), subDomain: z.string().nullable() }),
  },
  /** contact data of people by ids, or of every member of a group (`groupId`); removed people are left out */
  contacts: {
    path: '/membership/internal/people/contacts',
    body: z.object({ churchId: Uuid, ids: z.array(Uuid).max(5000).optional(), groupId: Uuid.optional() }),
    answer: z.array(PersonContact.extend({ leader: z.boolean() })),
  },
  /** every live person of the church with the facts automations and visibility rules select on */
  peopleFacts: {
    path: '/membership/internal/people/facts',
    body: z.object({ churchId: Uuid, ids: z.array(Uuid).max(20000).optional() }),
    answer: z.array(PersonFacts),
  },
  /**
   * the church's data version: raised in the same transaction as every change to its people (a household move
   * included), groups and group members, so a module keeping facts learnt from membership keeps them while it
   * is unchanged
   */
  version: {
    path: '/membership/internal/version',
    body: z.object({ churchId: Uuid }),
    answer: z.object({ version: z.string() }),
  },
  /**
   * applies changes to one person (doing's approved directory updates, with `photo` as a data URL or URL);
   * fields as `POST /membership/people` accepts them; answers the saved person's id
   */
  updatePerson: {
    path: '/membership/internal/people/update',
    body: z.object({ churchId: Uuid, personId: Uuid, changes: z.record(z.string(), z.unknown()) }),
    answer: z.object({ id: z.string() }),
  },
  /** sets `optedOut` on every person of the church whose mobile phone matches (SMS STOP/START); answers their ids */
  optOut: {
    path: '/membership/internal/people/optOut',
    body: z.object({ churchId: Uuid, phone: z.string().min(3).max(40), optedOut: z.boolean() }),
    answer: z.object({ personIds: z.array(z.string()) }),
  },
  /** names and photos of people by ids (removed people keep their names in history) */
  peopleBasic: {
    path: '/membership/internal/people/basic',
    body: z.object({ churchId: Uuid, ids: z.array(Uuid).max(5000) }),
    answer: z.array(z.object({ id: z.string(), displayName: z.string().nullable(), firstName: z.string().nullable(), lastName: z.string().nullable(), photo: z.string().nullable() })),
  },
  /** the people of a group with their leader flag (a snapshot: ask with `revalidate`) */
  groupMembers: {
    path: '/membership/internal/groups/members',
    body: z.object({ churchId: Uuid, groupId: Uuid }),
    answer: z.array(
      z.object({ personId: z.string(), displayName: z.string().nullable(), firstName: z.string().nullable(), lastName: z.string().nullable(), photo: z.string().nullable(), leader: z.boolean() }),
    ),
  },
  /**
   * the events the church listens for now: those its active webhooks subscribe to and those its workflow triggers
   * start on (membership asks doing), so a module reporting high-volume changes hands on only what someone hears
   */
  listenedEvents: {
    path: '/membership/internal/events/listened',
    body: z.object({ churchId: Uuid }),
    answer: z.object({ events: z.array(z.string()) }),
  },
  /**
   * the church's live groups as `GET /membership/groups` answers them (a snapshot: ask with `revalidate`); the
   * contract names the fields other modules read, the answer carries the rest too
   */
  groupsList: {
    path: '/membership/internal/groups/list',
    body: z.object({ churchId: Uuid }),
    answer: z.array(z.looseObject({ id: z.string(), name: z.string() })),
  },
} as const;


/** Membership's internal routes, each with the module that serves it (`callInternal`). */
export const membershipInternal = Object.fromEntries(Object.entries(membershipRoutes).map(([k, v]) => [k, { module: 'membership' as const, ...v }])) as {
  [K in keyof typeof membershipRoutes]: (typeof membershipRoutes)[K] & { module: 'membership' };
};
export type PersonContact = z.output<typeof membershipInternal.contacts.answer>[number];
export type PersonFacts = z.output<typeof membershipInternal.peopleFacts.answer>[number];

/**
 * Membership's job that adds a person to a group or takes them out (doing's `addToGroup` / `removeFromGroup` step
 * actions, enqueued in the card's transaction). Adding someone already in the group and removing someone not in it
 * change nothing, so a retried job is harmless; a group or person that is not the church's (or is gone) is skipped.
 */
export const groupMembershipChange = jobContract({
  name: 'membership.groupMembership',
  schema: z.object({ churchId: Uuid, groupId: Uuid, personId: Uuid, action: z.enum(['add', 'remove']) }),
  ...DELIVERY_RETRIES,
});

/**
 * Membership's job that sets one field of a person for doing's `setField` step action (enqueued in the card's
 * transaction, never called inside it). `configuredBy` is the user who saved the action: membership applies the
 * change only while that user may edit people in the church (People.Edit now, not when the action was saved), and
 * reports what it did to the card with `cardNote`. A person or user that is not the church's changes nothing.
 */
export const personFieldChange = jobContract({
  name: 'membership.personFieldChange',
  schema: z.object({
    churchId: Uuid,
    personId: Uuid,
    field: z.string().min(1).max(100),
    value: z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]),
    /** the user who configured the action; without one, nothing is changed */
    configuredBy: z.object({ userId: Uuid.optional(), personId: Uuid.optional() }),
    /** the card to tell what happened */
    cardId: Uuid.optional(),
  }),
  ...DELIVERY_RETRIES,
});

/** The church's name, as membership keeps it (emails, receipts, feeds); throws as `callInternal` does. */
export async function churchNameOf(internal: InternalClient, churchId: string): Promise<string> {
  return (await callInternal(internal, membershipInternal.church, { churchId })).name;
}
