import type { z } from 'zod';
import { callInternal, doingInternal, type ServiceDeps } from '@church/common';

/** What messaging asks doing about plans and tasks, for reminders (doing owns plans, their assignments and tasks). */
export type ReminderPlan = NonNullable<z.output<typeof doingInternal.planPeople.answer>['plan']>;
export type ReminderTask = NonNullable<z.output<typeof doingInternal.task.answer>['task']>;

export function planTypePlans(deps: Pick<ServiceDeps, 'internal'>, churchId: string, planTypeId: string, from: string, to: string) {
  return callInternal(deps.internal, doingInternal.planTypePlans, { churchId, planTypeId, from, to });
}

export function planPeople(deps: Pick<ServiceDeps, 'internal'>, churchId: string, planId: string) {
  return callInternal(deps.internal, doingInternal.planPeople, { churchId, planId });
}

export async function task(deps: Pick<ServiceDeps, 'internal'>, churchId: string, taskId: string): Promise<ReminderTask | null> {
  return (await callInternal(deps.internal, doingInternal.task, { churchId, taskId })).task;
}
