import { z } from 'zod';
import { DELIVERY_RETRIES, jobContract } from './queue';

/**
 * Jobs one module enqueues and another owns. The owner registers the handler (`handle(contract, ...)` in its
 * `jobs`) and lists the contract in its definition's `owns`; anyone enqueues it with `deps.queue.enqueue`.
 */

/**
 * Notify people of a church (messaging owns it): an in-app notification for each, then escalation by their
 * preferences (socket, push, email). Membership, doing and giving enqueue it.
 */
export const notifyPeople = jobContract({
  name: 'messaging.notifyPeople',
  schema: z.object({
    churchId: z.uuid(),
    personIds: z.array(z.uuid()).min(1).max(5000),
    message: z.string().min(1).max(2000),
    /** what the notification is about, for clients that open it */
    contentType: z.string().max(100).optional(),
    contentId: z.string().max(200).optional(),
    link: z.string().max(2000).optional(),
    /** the person whose action caused it; never notified of their own action */
    triggeredByPersonId: z.uuid().optional(),
  }),
  ...DELIVERY_RETRIES,
});

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

export const membershipInternal = {
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
} as const;
export type PersonContact = z.output<typeof membershipInternal.contacts.answer>[number];
export type PersonFacts = z.output<typeof membershipInternal.peopleFacts.answer>[number];
