import { z } from 'zod';
import type { ModuleName } from './config';
import { HttpError } from './errors';
import type { InternalCallOptions, InternalClient } from './internal';
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
 * Messaging's job that sends one of the church's email templates to one person, merge fields filled in (doing's
 * `sendEmail` step action, enqueued in the card's transaction; `subject` overrides the template's). A person
 * without an address, or a template that is not the church's, sends nothing; the delivery log says which.
 */
export const templateEmail = jobContract({
  name: 'messaging.templateEmail',
  schema: z.object({
    churchId: Uuid,
    templateId: Uuid,
    personId: Uuid,
    subject: z.string().max(500).optional(),
    /** what the mail is about, for the delivery log (`task` and the card's id) */
    contentType: z.string().max(40).optional(),
    contentId: z.string().max(100).optional(),
  }),
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

/**
 * Doing's job that adds a line to a workflow card's history: what another module's job, enqueued by one of the
 * card's step actions, really did (a field set or refused, an email sent or skipped). A card that is gone, or not
 * the church's, is left alone.
 */
export const cardNote = jobContract({
  name: 'doing.cardNote',
  schema: z.object({ churchId: Uuid, cardId: Uuid, note: z.string().min(1).max(500) }),
  ...DELIVERY_RETRIES,
});

/** Membership's internal routes, each with the module that serves it (`callInternal`). */
export const membershipInternal = Object.fromEntries(Object.entries(membershipRoutes).map(([k, v]) => [k, { module: 'membership' as const, ...v }])) as {
  [K in keyof typeof membershipRoutes]: (typeof membershipRoutes)[K] & { module: 'membership' };
};
export type PersonContact = z.output<typeof membershipInternal.contacts.answer>[number];
export type PersonFacts = z.output<typeof membershipInternal.peopleFacts.answer>[number];

/** A route one module serves others over signed HTTP: its module, path, the body it takes, the answer it gives. */
export interface InternalContract<B extends z.ZodType = z.ZodType, A extends z.ZodType = z.ZodType> {
  readonly module: ModuleName;
  readonly path: string;
  readonly body: B;
  readonly answer: A;
}

/** Answers already parsed, by the kept (revalidated) answer they came from: a 304 costs no second parse. */
const parsedAnswers = new WeakMap<object, unknown>();

/**
 * The one way to call another module: the body is checked against the contract before it is sent and the answer
 * parsed after. One failure policy: a callee that is briefly away (503) is passed on as a 503 with its Retry-After,
 * so the client retries; anything else — unreachable, a timeout, a 5xx, a 4xx of the callee's own (a route it
 * lacks, a secret that does not match), an answer of the wrong shape — is this module's 502 naming the callee,
 * never an empty or partial answer. `passClientErrors` hands the callee's 4xx on instead, for calls whose 4xx is
 * about the caller's own input (a person update the callee validates).
 */
export async function callInternal<B extends z.ZodType, A extends z.ZodType>(
  internal: InternalClient,
  contract: InternalContract<B, A>,
  body: z.input<B>,
  opts: InternalCallOptions & { passClientErrors?: boolean } = {},
): Promise<z.output<A>> {
  const { module } = contract;
  let data: unknown;
  try {
    data = await internal.post(module, contract.path, contract.body.parse(body), opts);
  } catch (err) {
    if (err instanceof HttpError && (err.statusCode === 503 || (opts.passClientErrors && err.statusCode < 500))) throw err;
    const status = err instanceof HttpError ? err.statusCode : undefined;
    throw new HttpError(502, [{ msg: status && status !== 502 ? `${module} answered ${status}` : `${module} is unreachable` }]);
  }
  if (data !== null && typeof data === 'object' && parsedAnswers.has(data)) return parsedAnswers.get(data) as z.output<A>;
  const parsed = contract.answer.safeParse(data);
  if (!parsed.success) throw new HttpError(502, [{ msg: `${module} answered an unexpected shape` }]);
  if (opts.revalidate && data !== null && typeof data === 'object') parsedAnswers.set(data, parsed.data);
  return parsed.data;
}

const Places = { churchId: Uuid, campusId: Uuid.optional(), serviceId: Uuid.optional(), serviceTimeId: Uuid.optional() };

/** Attendance's internal routes other modules call (signed; `callInternal`). */
export const attendanceInternal = {
  /** the people with a visit matching the filter (a place, a group or a category's groups, a date range) */
  people: {
    module: 'attendance' as const,
    path: '/attendance/internal/people',
    body: z.object({
      ...Places,
      groupId: Uuid.optional(),
      categoryName: z.string().optional(),
      groupIds: z.array(Uuid).max(5000).optional(),
      startDate: z.string().optional(),
      endDate: z.string().optional(),
    }),
    answer: z.object({ personIds: z.array(Uuid).max(100_000) }),
  },
  /** the groups that meet at a campus, service or service time */
  groups: {
    module: 'attendance' as const,
    path: '/attendance/internal/groups',
    body: z.object(Places),
    answer: z.object({ groupIds: z.array(z.string()).max(100_000) }),
  },
  /** the church's campuses by id (all live ones without `ids`), for names other modules show */
  campuses: {
    module: 'attendance' as const,
    path: '/attendance/internal/campuses',
    body: z.object({ churchId: Uuid, ids: z.array(Uuid).max(1000).optional() }),
    answer: z.array(z.object({ id: z.string(), name: z.string() })),
  },
} as const;

/** An amount of money as decimal text with at most two places (`"25.00"`): never a float. */
const MoneyText = z.string().regex(/^\d{1,10}(\.\d{1,2})?$/, 'must be an amount such as 25.00');

/** Giving's internal routes other modules call (signed; `callInternal`). */
export const givingInternal = {
  /**
   * A registration's payment, charged by giving through the church's gateway with giving's money rules (content's
   * `POST /registrations/:id/pay` and a paid registration). Giving keeps it as a payment record of the registration
   * (never a gift to a fund), reported to the audit log, and charges once per `idempotencyKey`: asked again with
   * the same key and body it answers the first payment; with the same key and another body, 409. A refused card, an
   * unknown gateway or a church without one is giving's 400 with its sentence (call with `passClientErrors`).
   * `requires_action` carries the gateway's `clientSecret` for the browser to finish (3-D Secure).
   */
  registrationCharge: {
    module: 'giving' as const,
    path: '/giving/internal/registrations/charge',
    body: z.object({
      churchId: Uuid,
      registrationId: Uuid,
      personId: Uuid.nullable(),
      email: z.string().max(255).nullable(),
      name: z.string().max(255).nullable(),
      amount: MoneyText,
      currency: z.string().length(3).optional(),
      /** the gateway by provider name (`stripe`, `paypal`) or id; the church's first gateway when neither is given */
      provider: z.string().max(50).optional(),
      gatewayId: Uuid.optional(),
      type: z.enum(['card', 'bank']).default('card'),
      /** a saved method (`pm_…`) with its customer, or a one-time token from the browser */
      paymentMethodId: z.string().max(255).optional(),
      customerId: z.string().max(255).optional(),
      token: z.string().max(255).optional(),
      idempotencyKey: z.string().min(1).max(255),
    }),
    answer: z.object({
      status: z.enum(['succeeded', 'processing', 'requires_action']),
      /** giving's payment record */
      paymentId: z.string(),
      provider: z.string(),
      transactionId: z.string().nullable(),
      amount: MoneyText,
      currency: z.string(),
      clientSecret: z.string().nullable(),
    }),
  },
  /** who gave (to a fund, in a date range): saved lists' giving conditions */
  donors: {
    module: 'giving' as const,
    path: '/giving/internal/people/donors',
    body: z.object({ churchId: Uuid, fundId: z.string().max(100).optional(), startDate: z.string().optional(), endDate: z.string().optional() }),
    answer: z.object({ personIds: z.array(Uuid).max(100_000) }),
  },
} as const;

/** The modules besides membership that keep personal data, and so answer the two GDPR contracts below. */
export const GDPR_MODULES = ['attendance', 'giving', 'messaging', 'content', 'doing'] as const satisfies readonly ModuleName[];
/** The person, and the logins linked to them in the church (records kept per user: settings, page history, linked accounts). */
const GdprBody = z.object({ churchId: Uuid, personId: Uuid, userIds: z.array(Uuid).max(100).default([]) });

/**
 * One person's records in a module, for a GDPR export: `{data: {<kind of record>: [rows]}}`, every row about the
 * person as the module's own API shows it. Each module of `GDPR_MODULES` serves it (signed, internal).
 */
export const gdprExport = (module: (typeof GDPR_MODULES)[number]) => ({
  module,
  path: `/${module}/internal/gdpr/export`,
  body: GdprBody,
  answer: z.object({ data: z.record(z.string(), z.array(z.unknown())) }),
});

/**
 * Removes what identifies the person in a module (contact details, devices, messages' text, saved payment methods)
 * while keeping every amount, date and count: `{changed: {<kind of record>: count}}`. Idempotent: asked again it
 * changes nothing more. Each module of `GDPR_MODULES` serves it (signed, internal).
 */
export const gdprAnonymize = (module: (typeof GDPR_MODULES)[number]) => ({
  module,
  path: `/${module}/internal/gdpr/anonymize`,
  body: GdprBody,
  answer: z.object({ changed: z.record(z.string(), z.number()) }),
});

/** Content removes a site's pages once membership has removed the site (enqueued in the delete's transaction). */
export const siteRemoved = jobContract({ name: 'content.siteRemoved', schema: z.object({ churchId: Uuid, siteId: Uuid }), attempts: 12, backoffMs: 2000 });

const Instant = z.iso.datetime({ offset: true });
const Day = z.iso.date();

/** Content's internal routes other modules call (signed; `callInternal`). */
export const contentInternal = {
  /**
   * An event of the church (`null` when it is not the church's or is gone) and the starts of its occurrences in
   * `[from, to)`: a recurring event's expanded, its exception dates left out (messaging's reminders).
   */
  eventOccurrences: {
    module: 'content' as const,
    path: '/content/internal/events/occurrences',
    body: z.object({ churchId: Uuid, eventId: Uuid, from: Instant, to: Instant }),
    answer: z.object({
      event: z.object({ id: z.string(), groupId: z.string().nullable(), title: z.string().nullable(), registrationEnabled: z.boolean() }).nullable(),
      starts: z.array(Instant).max(1000),
    }),
  },
  /**
   * The people of an event's active (pending or confirmed) registrations: who registered (`registrants`), and the
   * people registered (`attendees`, `personId` null for a name typed in without a person record).
   */
  eventRegistrations: {
    module: 'content' as const,
    path: '/content/internal/events/registrations',
    body: z.object({ churchId: Uuid, eventId: Uuid }),
    answer: z.object({ registrants: z.array(z.string()), attendees: z.array(z.object({ personId: z.string().nullable() })) }),
  },
} as const;

const ReminderPlan = z.object({ id: z.string(), name: z.string().nullable(), serviceDate: Day.nullable(), planTypeId: z.string().nullable() });

/** Doing's internal routes other modules call (signed; `callInternal`). */
export const doingInternal = {
  /** A plan type of the church (`null` when it is not the church's) and its plans whose service day is in `[from, to]`. */
  planTypePlans: {
    module: 'doing' as const,
    path: '/doing/internal/planTypes/plans',
    body: z.object({ churchId: Uuid, planTypeId: Uuid, from: Day, to: Day }),
    answer: z.object({ planType: z.object({ id: z.string(), name: z.string().nullable() }).nullable(), plans: z.array(ReminderPlan).max(1000) }),
  },
  /** A plan of the church (`null` when it is not the church's) and the people assigned to it who have not declined. */
  planPeople: {
    module: 'doing' as const,
    path: '/doing/internal/plans/people',
    body: z.object({ churchId: Uuid, planId: Uuid }),
    answer: z.object({ plan: ReminderPlan.nullable(), personIds: z.array(z.string()) }),
  },
  /** The events the church's active event triggers start on (membership's `listenedEvents` adds them to its webhooks'). */
  triggerEvents: {
    module: 'doing' as const,
    path: '/doing/internal/triggers/events',
    body: z.object({ churchId: Uuid }),
    answer: z.object({ events: z.array(z.string()) }),
  },
  /** A task of the church (`null` when it is not the church's), with its due date (a day, or an instant). */
  task: {
    module: 'doing' as const,
    path: '/doing/internal/tasks/one',
    body: z.object({ churchId: Uuid, taskId: Uuid }),
    answer: z.object({
      task: z
        .object({
          id: z.string(),
          title: z.string().nullable(),
          status: z.string().nullable(),
          dueDate: z.string().nullable(),
          assignedToType: z.string().nullable(),
          assignedToId: z.string().nullable(),
        })
        .nullable(),
    }),
  },
} as const;
