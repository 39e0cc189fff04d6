import type { PersonFacts } from '@church/common';
import type { DoingDeps } from '../deps';
import { membershipClient } from '../clients/membership';
import { activeAutomations, automationParts, runOnce, type AutomationTask } from '../repos/automations';
import { TaskActionData } from '../schemas';
import { compileTree, periodOf } from './conditions';
import { change, report } from './changes';
import { utcDay } from '@church/common';

export interface RunResult {
  date: string;
  churches: number;
  automations: number;
  tasksCreated: number;
}

type Automation = Awaited<ReturnType<typeof activeAutomations>>[number];

/**
 * Checks every active automation (of one church, or all) for `date` (default today, UTC): selects people by
 * the automation's condition tree, and for each selected person not yet served in this recurrence period runs
 * the `task` actions. The run key (automation, person, period) is unique, so a second run the same day, or
 * a retried job, creates nothing twice.
 */
export async function runAutomations(deps: Pick<DoingDeps, 'db' | 'internal' | 'queue' | 'module'>, opts: { date?: string; churchId?: string } = {}): Promise<RunResult> {
  const today = opts.date ?? utcDay();
  const active = await activeAutomations(deps.db, opts.churchId);
  const byChurch = new Map<string, Automation[]>();
  for (const a of active) byChurch.set(a.churchId, [...(byChurch.get(a.churchId) ?? []), a]);
  let tasksCreated = 0;
  const failed: string[] = [];
  for (const [churchId, list] of byChurch) {
    try {
      tasksCreated += await runChurch(deps, churchId, list, today);
    } catch (err) {
      // One church's failure (membership away for it) must not starve the others; the job retries, and what
      // already ran is not repeated (run keys).
      failed.push(`${churchId}: ${(err as Error).message}`);
    }
  }
  if (failed.length) throw new Error(`automations failed for ${failed.length} church(es): ${failed.join('; ').slice(0, 500)}`);
  return { date: today, churches: byChurch.size, automations: active.length, tasksCreated };
}

async function runChurch(deps: Pick<DoingDeps, 'db' | 'internal' | 'queue' | 'module'>, churchId: string, list: Automation[], today: string): Promise<number> {
  let tasksCreated = 0;
  const { conds, conjs, acts } = await automationParts(deps.db, churchId, list.map((a) => a.id));
  const runnable = list.filter((a) => conds.some((c) => c.automationId === a.id) && acts.some((x) => x.automationId === a.id && x.actionType === 'task'));
  if (!runnable.length) return 0;
  const people = await membershipClient(deps.internal).peopleFacts(churchId);
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
    const byId = new Map<string, PersonFacts>(selected.map((p) => [p.id, p]));
    const now = new Date();
    const made = await runOnce(
      deps.db,
      churchId,
      automation.id,
      selected.map((p) => p.id),
      periodOf(automation.recurs, today),
      (personId): AutomationTask[] => {
        const person = byId.get(personId)!;
        return taskActions.map((action) => ({
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
        }));
      },
      (tx, rows) => report(deps, undefined, rows.map((row) => change('task', undefined, row)), tx),
    );
    tasksCreated += made.length;
  }
  return tasksCreated;
}
