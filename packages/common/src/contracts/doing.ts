import { z } from 'zod';
import { DELIVERY_RETRIES, jobContract } from '../queue';

const Uuid = z.uuid();
const Day = z.iso.date();

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
