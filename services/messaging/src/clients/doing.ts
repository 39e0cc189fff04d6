import { z } from 'zod';
import { callInternal, type InternalContract, type ServiceDeps } from '@church/common';

/**
 * What messaging asks doing about plans and tasks, for reminders. Doing owns plans, their assignments and tasks;
 * these contracts are asked of the lead for `@church/common`'s `contracts.ts` (doing to serve them) and live here,
 * behind one function each, until then.
 */
const Uuid = z.uuid();
const Day = z.iso.date();
const Plan = z.object({ id: z.string(), name: z.string().nullable(), serviceDate: Day.nullable(), planTypeId: z.string().nullable() });

export const doingReminderContracts = {
  /** A plan type of the church (`null` when it is not the church's) and its plans whose service day is in `[from, to]`. */
  planTypePlans: {
    module: 'doing',
    path: '/doing/internal/planTypes/plans',
    body: z.object({ churchId: Uuid, planTypeId: Uuid, from: Day, to: Day }),
    answer: z.object({ planType: z.object({ id: z.string(), name: z.string().nullable() }).nullable(), plans: z.array(Plan).max(1000) }),
  },
  /** A plan of the church (`null` when it is not the church's) and the people assigned to it who have not declined. */
  planPeople: {
    module: 'doing',
    path: '/doing/internal/plans/people',
    body: z.object({ churchId: Uuid, planId: Uuid }),
    answer: z.object({ plan: Plan.nullable(), personIds: z.array(z.string()) }),
  },
  /** A task of the church (`null` when it is not the church's), with its due date (a day, or an instant). */
  task: {
    module: 'doing',
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
} satisfies Record<string, InternalContract>;

export type ReminderPlan = z.output<typeof Plan>;
export type ReminderTask = NonNullable<z.output<typeof doingReminderContracts.task.answer>['task']>;

export function planTypePlans(deps: Pick<ServiceDeps, 'internal'>, churchId: string, planTypeId: string, from: string, to: string) {
  return callInternal(deps.internal, doingReminderContracts.planTypePlans, { churchId, planTypeId, from, to });
}

export function planPeople(deps: Pick<ServiceDeps, 'internal'>, churchId: string, planId: string) {
  return callInternal(deps.internal, doingReminderContracts.planPeople, { churchId, planId });
}

export async function task(deps: Pick<ServiceDeps, 'internal'>, churchId: string, taskId: string): Promise<ReminderTask | null> {
  return (await callInternal(deps.internal, doingReminderContracts.task, { churchId, taskId })).task;
}
