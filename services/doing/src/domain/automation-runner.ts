import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { PersonFacts } from '@church/common';
import type { DoingDeps } from '../app';
import { actions, automationRuns, automations, conditions, conjunctions, tasks } from '../db/schema';
import { membershipClient } from '../clients/membership';
import { reserveTaskNumbers } from '../repos/tasks';
import { TaskActionData } from '../schemas';
import { compileTree, periodOf } from './conditions';
import { utcDay } from './tree';

export interface RunResult {
  date: string;
  churches: number;
  automations: number;
  tasksCreated: number;
}

/**
 * Checks every active automation (of one church, or all) for `date` (default today, UTC): selects people by
 * the automation's condition tree, and for each selected person not yet served in this recurrence period runs
 * the `task` actions. The run key (automation, person, period) is unique, so a second run the same day, or
 * a retried job, creates nothing twice.
 */
export async function runAutomations(deps: Pick<DoingDeps, 'db' | 'internal'>, opts: { date?: string; churchId?: string } = {}): Promise<RunResult> {
  const today = opts.date ?? utcDay();
  const active = await deps.db
    .select()
    .from(automations)
    .where(and(eq(automations.active, true), opts.churchId ? eq(automations.churchId, opts.churchId) : undefined));
  const byChurch = new Map<string, typeof active>();
  for (const a of active) byChurch.set(a.churchId, [...(byChurch.get(a.churchId) ?? []), a]);
  const membership = membershipClient(deps.internal);
  let tasksCreated = 0;
  const failed: string[] = [];
  for (const [churchId, list] of byChurch) {
    try {
      tasksCreated += await runChurch(deps, membership, churchId, list, today);
    } catch (err) {
      // One church's failure (membership away for it) must not starve the others; the job retries, and what
      // already ran is not repeated (run keys).
      failed.push(`${churchId}: ${(err as Error).message}`);
    }
  }
  if (failed.length) throw new Error(`automations failed for ${failed.length} church(es): ${failed.join('; ').slice(0, 500)}`);
  return { date: today, churches: byChurch.size, automations: active.length, tasksCreated };
}

async function runChurch(
  deps: Pick<DoingDeps, 'db' | 'internal'>,
  membership: ReturnType<typeof membershipClient>,
  churchId: string,
  list: Array<typeof automations.$inferSelect>,
  today: string,
): Promise<number> {
  let tasksCreated = 0;
  const ids = list.map((a) => a.id);
  const [conds, conjs, acts] = await Promise.all([
    deps.db.select().from(conditions).where(and(eq(conditions.churchId, churchId), inArray(conditions.automationId, ids))),
    deps.db.select().from(conjunctions).where(and(eq(conjunctions.churchId, churchId), inArray(conjunctions.automationId, ids))),
    deps.db.select().from(actions).where(and(eq(actions.churchId, churchId), inArray(actions.automationId, ids))),
  ]);
  const runnable = list.filter((a) => conds.some((c) => c.automationId === a.id) && acts.some((x) => x.automationId === a.id && x.actionType === 'task'));
  if (!runnable.length) return 0;
  const people = await membership.peopleFacts(churchId);
  for (const automation of runnable) {
    const test = compileTree(
      conds.filter((c) => c.automationId === automation.id),
      conjs.filter((j) => j.automationId === automation.id),
    );
    const selected = people.filter((p) => test(p, today));
    const taskActions = acts.filter((x) => x.automationId === automation.id && x.actionType === 'task').flatMap((x) => {
      const parsed = TaskActionData.safeParse(x.actionData);
      return parsed.success ? [parsed.data] : [];
    });
    if (!selected.length || !taskActions.length) continue;
    tasksCreated += await runFor(deps, churchId, automation, selected, taskActions, periodOf(automation.recurs, today));
  }
  return tasksCreated;
}

async function runFor(
  deps: Pick<DoingDeps, 'db'>,
  churchId: string,
  automation: typeof automations.$inferSelect,
  people: PersonFacts[],
  taskActions: Array<ReturnType<typeof TaskActionData.parse>>,
  period: string,
): Promise<number> {
  return deps.db.transaction(async (tx) => {
    // Claim the (automation, person, period) keys first; only people whose key is new get tasks.
    const claimed = await tx
      .insert(automationRuns)
      .values(people.map((p) => ({ id: randomUUID(), churchId, automationId: automation.id, personId: p.id, period })))
      .onConflictDoNothing()
      .returning({ id: automationRuns.id, personId: automationRuns.personId });
    if (!claimed.length) return 0;
    const byId = new Map(people.map((p) => [p.id, p]));
    const count = claimed.length * taskActions.length;
    const first = await reserveTaskNumbers(tx, churchId, count);
    const now = new Date();
    const rows = claimed.flatMap((run, i) =>
      taskActions.map((action, j) => {
        const person = byId.get(run.personId)!;
        return {
          id: randomUUID(),
          churchId,
          taskNumber: first + i * taskActions.length + j,
          taskType: 'automation',
          dateCreated: now,
          associatedWithType: 'person',
          associatedWithId: person.id,
          associatedWithLabel: person.displayName ?? [person.firstName, person.lastName].filter(Boolean).join(' '),
          createdByType: 'automation',
          createdById: automation.id,
          createdByLabel: automation.title,
          assignedToType: action.assignedToType,
          assignedToId: action.assignedToId,
          assignedToLabel: action.assignedToLabel ?? null,
          title: action.title,
          note: action.note ?? null,
          status: 'Open',
          automationId: automation.id,
        };
      }),
    );
    for (let i = 0; i < rows.length; i += 500) await tx.insert(tasks).values(rows.slice(i, i + 500));
    for (const [i, run] of claimed.entries()) {
      await tx.update(automationRuns).set({ taskIds: rows.slice(i * taskActions.length, (i + 1) * taskActions.length).map((r) => r.id) }).where(eq(automationRuns.id, run.id));
    }
    return rows.length;
  });
}
