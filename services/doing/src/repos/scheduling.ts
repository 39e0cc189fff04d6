import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { addDays, badRequest, notFound, prepared, type DbOrTx } from '@church/common';
import { assignments, plans } from '../db/schema';
import { autofill } from '../lib/autofill';

/** Days either side of the service date whose assignments count towards a person's recent load. */
export const SPREAD_WINDOW_DAYS = 90;

/** Statuses that keep a person booked on a plan's day (a declined assignment frees them). */
const BOOKED = sql.raw(`('Unconfirmed', 'Accepted')`);

const param = (name: string) => sql.placeholder(name);

/**
 * The plan's day, with the lock on (church, day) taken: two autofills for the same church and day (this plan or
 * another) take turns, so neither can book a person the other just booked, nor overfill a position. The lock is
 * transaction-scoped and taken in the statement that finds the plan; no plan (or no day) takes no lock.
 */
const lockPlanDay = prepared<{ day: string | null }>(sql`
  select to_char(p.service_date, 'YYYY-MM-DD') as day,
         pg_advisory_xact_lock(hashtext('doing.autofill:' || p.church_id::text || ':' || to_char(p.service_date, 'YYYY-MM-DD'))) is null as locked
    from plans p
   where p.church_id = ${param('churchId')} and p.id = ${param('planId')}`);

/**
 * Everything autofill needs to know about the plan's day, in one statement (after the lock, so it sees what an
 * earlier autofill of the same day committed), one row per fact:
 * - `slot`: a position of the plan and its `count`;
 * - `booked`: a person assigned on that day: to this plan (any status: the assignment fills its position's
 *   slot, `n` = 1) or, while Unconfirmed or Accepted, to another plan of the church (`n` = 0);
 * - `blocked`: a person blocked out on that day;
 * - `recent`: a person's assignments (`n`) on the plans within `SPREAD_WINDOW_DAYS` of the day;
 * - `cap`: a person who serves at most so many times a month (scheduling preferences) and how many of those
 *   are left in the plan's month (`n`, declined assignments not counted), counted from the month's plans and
 *   their assignments, one pass whatever the number of preferences. (Counted per preference from the person's
 *   assignments, it read each preferring person's whole history: on the bench, 100 preferences of people
 *   autofill keeps picking made it 1.2 ms a preference and growing with every run, 118 ms of a request.)
 * The facts cover everyone, not just the candidates: the caller picks its candidates' facts from them. Each
 * part starts from an index that leads with church_id (the plan's positions; the day's plans, then their
 * assignments; the blockouts ending on or after the day; the window's plans). That plan holds for any
 * candidates and any day, which matters because the statement is prepared: with the candidates bound as an
 * array, PostgreSQL's generic plan guessed a handful of them and walked every assignment they ever had, a cost
 * that grows with the history.
 * `recent` reads the window's plan rows alone: each carries the people of its assignments (`plans.assignees`,
 * kept by triggers on assignments, migration 0005), so no assignment is visited. Read from assignments plan by
 * plan it cost an index probe per plan and a heap visit per assignment not yet marked all-visible (every recent
 * one): twice as long on the bench. (Written as `plan_id = any(array(select …))`, the planner had chosen a
 * sequential scan of every assignment of every church: 15–30 ms a request, growing with the table.)
 */
type Fact = { kind: 'slot' | 'booked' | 'blocked' | 'recent' | 'cap'; position_id: string | null; person_id: string | null; n: number };
const autofillFacts = prepared<Fact>(sql`
  select 'slot' as kind, pos.id as position_id, null::uuid as person_id, pos.count as n
    from positions pos
   where pos.church_id = ${param('churchId')} and pos.plan_id = ${param('planId')}
  union all
  select 'booked', a.position_id, a.person_id, case when a.plan_id = ${param('planId')} then 1 else 0 end
    from plans d
    join assignments a on a.church_id = d.church_id and a.plan_id = d.id
   where d.church_id = ${param('churchId')} and d.service_date = ${param('day')}::date
     and (a.plan_id = ${param('planId')} or a.status in ${BOOKED})
  union all
  select 'blocked', null, b.person_id, 0
    from blockout_dates b
   where b.church_id = ${param('churchId')} and b.end_date >= ${param('day')}::date and b.start_date <= ${param('day')}::date
  union all
  select 'recent', null, r.person_id, count(*)::int
    from plans w
   cross join unnest(w.assignees) r(person_id)
   where w.church_id = ${param('churchId')} and w.service_date between ${param('from')}::date and ${param('to')}::date
   group by r.person_id
  union all
  select 'cap', null, sp.person_id, sp.max_per_month - coalesce(m.n, 0)
    from scheduling_preferences sp
    left join (select a.person_id, count(*)::int as n
                 from plans m
                 join assignments a on a.church_id = m.church_id and a.plan_id = m.id
                where m.church_id = ${param('churchId')} and m.service_date between ${param('monthStart')}::date and ${param('monthEnd')}::date
                  and a.status <> 'Declined'
                group by a.person_id) m on m.person_id = sp.person_id
   where sp.church_id = ${param('churchId')} and sp.max_per_month is not null`);

/** The picks as new Unconfirmed assignments of one run, one statement for any number of them. */
const insertAssignments = prepared(sql`
  insert into assignments (id, church_id, plan_id, position_id, person_id, status, autofill_run_id)
  select t.id, ${param('churchId')}::uuid, ${param('planId')}::uuid, t.position_id, t.person_id, 'Unconfirmed', ${param('runId')}::uuid
    from unnest(${param('ids')}::uuid[], ${param('positionIds')}::uuid[], ${param('personIds')}::uuid[]) as t(id, position_id, person_id)`);

/** The first and last day of the month of `day` (`YYYY-MM-DD`). */
function monthOf(day: string): { monthStart: string; monthEnd: string } {
  const [y, m] = day.split('-').map(Number) as [number, number];
  return { monthStart: `${day.slice(0, 7)}-01`, monthEnd: new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10) };
}

/**
 * Fills the plan's open slots from the teams given (`lib/autofill`), in the caller's transaction, in four
 * statements (the plan with its day's lock, the facts, the insert, the plan's last run); answers the plan, the
 * assignments it made and the run's id (undo takes the run back). Every position must belong to the plan.
 */
export async function autofillPlan(tx: DbOrTx, churchId: string, planId: string, given: Array<{ positionId: string; personIds: string[] }>) {
  // Ids as PostgreSQL answers them (lower case), so a person or position sent in capitals is still recognised.
  const teams = given.map((t) => ({ positionId: t.positionId.toLowerCase(), personIds: t.personIds.map((id) => id.toLowerCase()) }));
  {
    const [locked] = await lockPlanDay(tx, { churchId, planId });
    if (!locked) throw notFound('Plan');
    const day = locked.day;
    if (!day) throw badRequest('serviceDate', 'the plan has no service date to fill');
    const facts = await autofillFacts(tx, { churchId, planId, day, from: addDays(day, -SPREAD_WINDOW_DAYS), to: addDays(day, SPREAD_WINDOW_DAYS), ...monthOf(day) });

    const counts = new Map<string, number>();
    const filled = new Map<string, number>();
    const blockedOut = new Set<string>();
    const busy = new Set<string>();
    const recent = new Map<string, number>();
    const monthLeft = new Map<string, number>();
    for (const f of facts) {
      if (f.kind === 'slot') counts.set(f.position_id!, f.n);
      else if (f.kind === 'blocked') blockedOut.add(f.person_id!);
      else if (f.kind === 'recent') recent.set(f.person_id!, f.n);
      else if (f.kind === 'cap') monthLeft.set(f.person_id!, f.n);
      else {
        busy.add(f.person_id!);
        if (f.n === 1) filled.set(f.position_id!, (filled.get(f.position_id!) ?? 0) + 1);
      }
    }
    teams.forEach((t, i) => {
      if (!counts.has(t.positionId)) throw badRequest(`teams[${i}].positionId`, 'Position not found in this plan');
    });
    const picks = autofill({
      teams: teams.map((t) => ({ position: { id: t.positionId, count: counts.get(t.positionId)!, assigned: filled.get(t.positionId) ?? 0 }, personIds: t.personIds })),
      blockedOut,
      busy,
      recent,
      monthLeft,
    });
    const ofPlan = and(eq(plans.churchId, churchId), eq(plans.id, planId));
    if (!picks.length) {
      const [unchanged] = await tx.select().from(plans).where(ofPlan);
      return { plan: unchanged!, created: 0, runId: null, assignments: [] };
    }
    const runId = randomUUID();
    const rows = picks.map((pick) => ({ id: randomUUID(), churchId, planId, positionId: pick.positionId, personId: pick.personId, status: 'Unconfirmed', notified: null }));
    await insertAssignments(tx, { churchId, planId, runId, ids: rows.map((r) => r.id), positionIds: rows.map((r) => r.positionId), personIds: rows.map((r) => r.personId) });
    const [filledPlan] = await tx.update(plans).set({ lastAutofillRunId: runId }).where(ofPlan).returning();
    return { plan: filledPlan!, created: rows.length, runId, assignments: rows };
  }
}

/**
 * Takes back the plan's last autofill, in the caller's transaction: its assignments nobody has answered yet (an
 * accepted or declined one is the volunteer's word and stays). Answers the assignments removed; a plan with no run
 * to undo removes none.
 */
export async function undoAutofill(tx: DbOrTx, churchId: string, planId: string): Promise<Array<typeof assignments.$inferSelect>> {
  const ofPlan = and(eq(plans.churchId, churchId), eq(plans.id, planId));
  const [plan] = await tx.select({ runId: plans.lastAutofillRunId }).from(plans).where(ofPlan).for('update');
  if (!plan) throw notFound('Plan');
  if (!plan.runId) return [];
  const gone = await tx
    .delete(assignments)
    .where(and(eq(assignments.churchId, churchId), eq(assignments.planId, planId), eq(assignments.autofillRunId, plan.runId), eq(assignments.status, 'Unconfirmed')))
    .returning();
  await tx.update(plans).set({ lastAutofillRunId: null }).where(ofPlan);
  return gone;
}
