import { hasPermission } from '@church/auth';
import { REMOTE, assertReferences, badRequest, notifyPeople, type Actor } from '@church/common';
import type { DoingDeps } from '../deps';
import { planTypes } from '../db/schema';
import { daysBetween } from '../lib/days';
import { copyPlan, overview, type CopyOptions, type PlanRow } from '../repos/plans';
import { autofillPlan, undoAutofill } from '../repos/scheduling';
import { change, report } from './changes';
import type { ministryAccess } from './ministry-access';
import { schedulesByPerson } from './serving-schedule';

type Deps = Pick<DoingDeps, 'db' | 'internal' | 'queue' | 'module'>;
/** The caller's right over ministries for one request (`ministryAccess`). */
export type MinistryAccess = ReturnType<typeof ministryAccess>;
/** How a body's field is named in an error (`[i].field` for an array body, `field` for one item). */
export type Param = (i: number, field: string) => string;

/**
 * What a plan names: its type (doing's), ministry (a group) and campus (attendance's). `contentId` names the lesson
 * venue the plan follows at the content provider, no record of the church.
 */
export const PLAN_REFERENCES = { planTypeId: planTypes, ministryId: REMOTE.groups, campusId: REMOTE.campuses };
/** The longest range the serving matrix and its notice cover (a year and a day, so any calendar year fits). */
export const MAX_RANGE_DAYS = 366;
/** People one "Email all" tells at most; the answer says `capped` when there were more. */
export const NOTIFY_RANGE_CAP = 1000;

/** A range's days in order and no longer than `MAX_RANGE_DAYS`, or a 400 naming `endDate` (in the query or the body). */
export function checkRange(q: { startDate: string; endDate: string }, location: 'query' | 'body') {
  const days = daysBetween(q.startDate, q.endDate);
  if (days < 0) throw badRequest('endDate', 'must not be before startDate', location);
  if (days > MAX_RANGE_DAYS) throw badRequest('endDate', `must be at most ${MAX_RANGE_DAYS} days after startDate`, location);
}

/** The plan, once the caller may edit its ministry (a query only for callers without Plans.Edit). */
async function mayEditPlan(deps: Deps, actor: Actor, access: MinistryAccess, planId: string): Promise<void> {
  if (!hasPermission(actor, 'Plans.Edit')) await access.plan(deps.db, planId);
}

/** A copy of the caller's plan on a new date (into another of the caller's ministries, when the body says so). */
export async function copyPlanOf(deps: Deps, actor: Actor, access: MinistryAccess, planId: string, body: CopyOptions, param: Param): Promise<PlanRow> {
  const source = await access.plan(deps.db, planId);
  if (body.ministryId !== undefined && body.ministryId !== source.ministryId) await access.ministry(body.ministryId);
  await assertReferences(deps, actor.churchId, [body], PLAN_REFERENCES, param);
  return deps.queue.transaction(deps.db, async (tx) => {
    const copy = await copyPlan(tx, actor.churchId, source.id, body);
    await report(deps, actor, [change('plan', undefined, copy)], tx);
    return copy;
  });
}

/**
 * One line of the church's audit log for an autofill run or its undo: the plan, the run and who was put in (or taken
 * out of) which position. A run fills dozens of positions at once; one line naming them reads as what the staff
 * member did, where a line per assignment buried it (and cost the audit log a row per assignment).
 */
function autofillChange(churchId: string, planId: string, action: 'autofilled' | 'autofillUndone', runId: string | null, rows: Array<{ positionId: string; personId: string | null }>) {
  return change('plan', undefined, { id: planId, churchId, autofillRunId: runId, assignments: rows.map((a) => ({ positionId: a.positionId, personId: a.personId })) }, action);
}

/**
 * Autofill of the plan's open slots from the teams given. The people are the church's (membership's); the positions
 * are checked in the run, as the plan's. The run's assignments are reported in its transaction (one outbox row,
 * committed with them and handed on after the commit without the request waiting), not in a write and a commit of
 * their own after it.
 */
export async function runAutofill(deps: Deps, actor: Actor, access: MinistryAccess, planId: string, teams: Array<{ positionId: string; personIds: string[] }>) {
  await mayEditPlan(deps, actor, access, planId);
  const people = teams.map((team) => ({ personIds: team.personIds.map((id) => id.toLowerCase()) }));
  await assertReferences(deps, actor.churchId, people, { personIds: REMOTE.people }, (i, field) => `teams[${i}].${field}`);
  return deps.queue.transaction(deps.db, async (tx) => {
    const filled = await autofillPlan(tx, actor.churchId, planId, teams);
    if (filled.runId) await report(deps, actor, [autofillChange(actor.churchId, planId, 'autofilled', filled.runId, filled.assignments)], tx);
    return filled;
  });
}

/** The plan's last autofill taken back: whoever may fill a plan may take the fill back. */
export async function undoLastAutofill(deps: Deps, actor: Actor, access: MinistryAccess, planId: string): Promise<{ removed: number }> {
  await mayEditPlan(deps, actor, access, planId);
  return deps.queue.transaction(deps.db, async (tx) => {
    const gone = await undoAutofill(tx, actor.churchId, planId);
    if (gone.length) await report(deps, actor, [autofillChange(actor.churchId, planId, 'autofillUndone', gone[0]!.autofillRunId, gone)], tx);
    return { removed: gone.length };
  });
}

/**
 * "Email all" of the serving matrix: each person serving in the range hears of their own plans (penciled-in plans
 * are left out: volunteers do not see them yet), through messaging's notifyPeople; all the notices are queued in
 * one transaction, so either every one is on its way or the call fails and can be repeated.
 */
export async function notifyRange(deps: Deps, actor: Actor, access: MinistryAccess, range: { startDate: string; endDate: string; ministryId: string; planTypeId?: string | null }) {
  checkRange(range, 'body');
  await access.ministry(range.ministryId);
  const schedules = schedulesByPerson(await overview(deps.db, actor.churchId, { ...range, published: true }));
  const told = schedules.slice(0, NOTIFY_RANGE_CAP);
  const stamp = Date.now();
  if (told.length) {
    await deps.queue.transaction(deps.db, async (tx) => {
      for (const s of told) {
        await deps.queue.enqueue(
          notifyPeople,
          { churchId: actor.churchId, personIds: [s.personId], message: s.message, contentType: 'schedule', contentId: s.firstPlanId, link: '/mobile/plans' },
          { jobId: `doing.notifyRange.${actor.churchId}.${s.personId}.${stamp}`, tx },
        );
      }
    });
  }
  return { sent: told.length, failed: 0, capped: schedules.length > told.length };
}
