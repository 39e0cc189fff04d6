import { randomUUID } from 'node:crypto';
import { badRequest, getRow, rowsByIds, systemActor, utcDay, type Actor, type ChangeRecord, type PersonFacts, type Tx } from '@church/common';
import type { DoingDeps } from '../deps';
import { workflowExecutions, workflowTriggers } from '../db/schema';
import { membershipClient } from '../clients/membership';
import { activeScheduleTriggers, claimExecution, eventTriggers, finishExecution, hasCard, setExecutionStatus, treeOf, type ExecutionRow, type TriggerRow } from '../repos/workflows';
import { CardRun, factsById, subjectFacts, type JobRun, type Subject } from './cards';
import { compileTree, periodOf } from './conditions';
import { matchesFilter, needsPerson, parseFilter, type FilterNode } from './workflow-catalog';

type Deps = Pick<DoingDeps, 'db' | 'internal' | 'queue' | 'module'>;
type Execution = ExecutionRow;
interface Candidate {
  trigger: TriggerRow;
  subject: Subject;
  eventKey: string;
  eventType: string;
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : undefined);

/** The subject (whom a card would be about) and the facts of one change record, by event; `[]` when it has none. */
export function subjectsOf(record: ChangeRecord): Array<{ subject: Subject; facts: Record<string, unknown> }> {
  const d = (record.data && typeof record.data === 'object' ? record.data : {}) as Record<string, unknown>;
  const person = (id: unknown, facts: Record<string, unknown>) => (str(id) ? [{ subject: { type: 'person', id: str(id)! }, facts }] : []);
  switch (record.event) {
    case 'person.created':
    case 'person.updated':
      return [{ subject: { type: 'person', id: record.entityId, label: str(d.displayName) }, facts: { 'person.membershipStatus': d.membershipStatus, 'person.gender': d.gender, 'person.maritalStatus': d.maritalStatus } }];
    case 'donation.created': {
      const funds = Array.isArray(d.funds) ? d.funds : Array.isArray(d.fundDonations) ? d.fundDonations : [];
      return person(d.personId, { 'donation.amount': d.amount, 'donation.method': d.method, 'fundDonation.fundId': funds.map((f) => (f as { fundId?: unknown }).fundId).filter(Boolean) });
    }
    case 'group.member.added':
    case 'group.member.removed':
    case 'group.member.requested':
      return person(d.personId, { 'group.id': d.groupId, 'group.name': d.groupName });
    case 'form.submission.created':
      return d.contentType === 'person' ? person(d.contentId, { 'formSubmission.formId': d.formId }) : [];
    case 'attendance.recorded': {
      // a check-in's visit names its groups in its sessions (a visit logged into one session carries it at the top)
      const sessions = Array.isArray(d.visitSessions) ? d.visitSessions : [];
      const groups = [str(d.groupId), ...sessions.map((vs) => str((vs as { session?: { groupId?: unknown } }).session?.groupId))].filter(Boolean);
      return person(d.personId, { 'group.id': [...new Set(groups)] });
    }
    case 'registration.created':
      return person(d.personId, { 'registration.eventId': d.eventId });
    case 'list.member.added':
    case 'list.member.removed':
      return person(d.personId, { 'list.id': d.listId, 'list.name': d.listName });
    default:
      return [];
  }
}

/**
 * `doing.workflowEvents`: the church's active event triggers for these change records start cards. Each firing claims
 * an execution row keyed by trigger and event (`<event>|<entityId>|<at>`, unique), in the transaction that starts its
 * card, so the same records handled again (a retried or duplicated job) start nothing more. Facts a filter needs
 * about the person (membership status) come from membership's people facts, asked once per church; if membership
 * is away the job fails before anything is written and is retried.
 */
export async function runWorkflowEvents(deps: Deps, records: ChangeRecord[], job: JobRun): Promise<{ started: number }> {
  const byChurch = new Map<string, ChangeRecord[]>();
  for (const r of records) if (r.event) byChurch.set(r.churchId, [...(byChurch.get(r.churchId) ?? []), r]);
  let started = 0;
  for (const [churchId, list] of byChurch) {
    const triggers = await eventTriggers(deps.db, churchId, [...new Set(list.map((r) => r.event!))]);
    if (!triggers.length) continue;
    const filters = new Map<string, FilterNode | null>();
    for (const t of triggers) {
      try {
        filters.set(t.id, parseFilter(t.conditions));
      } catch {
        filters.set(t.id, { type: 'condition', field: '', operator: 'never' }); // a broken filter matches nothing
      }
    }
    const pairs = list.flatMap((record) => subjectsOf(record).flatMap(({ subject, facts }) => triggers.filter((t) => t.eventType === record.event).map((trigger) => ({ record, subject, facts, trigger }))));
    const personIds = [...new Set(pairs.filter((p) => p.subject.type === 'person').map((p) => p.subject.id))];
    const people = new Map<string, PersonFacts>(personIds.length ? (await membershipClient(deps.internal).peopleFacts(churchId, personIds)).map((p) => [p.id, p]) : []);
    const candidates: Candidate[] = [];
    for (const { record, subject, facts, trigger } of pairs) {
      const person = people.get(subject.id);
      const all = { ...facts, ...(person && facts['person.membershipStatus'] === undefined ? { 'person.membershipStatus': person.membershipStatus } : {}) };
      const filter = filters.get(trigger.id) ?? null;
      if (needsPerson(filter) && subject.type === 'person' && !person && facts['person.membershipStatus'] === undefined) continue;
      if (!matchesFilter(all, filter)) continue;
      candidates.push({ trigger, subject: { ...subject, label: subject.label ?? person?.displayName ?? null }, eventType: record.event!, eventKey: `${record.event}|${record.entityId}|${record.at}` });
    }
    started += await fire(deps, systemActor(churchId, job.id, job.log), candidates, factsById([...people.values()]));
  }
  return { started };
}

/**
 * Claims each candidate's execution and starts its card, in one transaction, in the church of the Actor (the caller,
 * or the module itself in a job); answers how many cards started. `facts`: the subjects' people facts, asked before
 * (membership is never called inside the transaction).
 */
async function fire(deps: Deps, actor: Actor, candidates: Candidate[], facts: Map<string, PersonFacts>): Promise<number> {
  if (!candidates.length) return 0;
  const churchId = actor.churchId;
  return deps.queue.transaction(deps.db, async (tx) => {
    let started = 0;
    for (const c of candidates) {
      if (c.trigger.oncePerSubject && (await hasCard(tx, churchId, c.trigger.workflowId, c.subject.type, c.subject.id))) continue;
      const claimed = await claimExecution(tx, {
        id: randomUUID(),
        churchId,
        triggerId: c.trigger.id,
        workflowId: c.trigger.workflowId,
        eventKey: c.eventKey,
        eventType: c.eventType,
        subjectType: c.subject.type,
        subjectId: c.subject.id,
        subjectLabel: c.subject.label ?? null,
      });
      if (!claimed) continue;
      if ((await attempt(deps, tx, actor, claimed, c.trigger, facts)).status === 'success') started++;
    }
    return started;
  });
}

/**
 * One attempt of an execution (of the Actor's church): its card started in a savepoint; a failure (no steps, a step
 * gone) is kept on the row.
 */
export async function attempt(deps: Deps, tx: Tx, actor: Actor, execution: Execution, trigger: TriggerRow, facts?: Map<string, PersonFacts>): Promise<Execution> {
  let taskId: string | null = null;
  let lastError: string | null = null;
  try {
    await tx.transaction(async (sp) => {
      const run = new CardRun(deps, sp, actor, facts);
      const step = await run.startStep(trigger.workflowId, trigger.stepId);
      const [card] = await run.create(trigger.workflowId, step, [{ type: execution.subjectType, id: execution.subjectId!, label: execution.subjectLabel }], { type: 'system', label: 'Trigger' }, trigger.id);
      taskId = card!.id;
    });
  } catch (err) {
    lastError = ((err as { errors?: Array<{ msg: string }> }).errors?.[0]?.msg ?? (err as Error).message).slice(0, 1000);
  }
  return finishExecution(tx, execution.churchId, execution.id, { status: taskId ? 'success' : 'failed', taskId, lastError, attemptCount: execution.attemptCount + 1, dateCompleted: new Date(), updatedAt: new Date() });
}

/**
 * A schedule trigger's people (its condition tree over membership's people facts) start cards once per `recurs`
 * period each (the execution key holds the period); `runNow` of an event trigger starts cards for who matches it today:
 * every person (person events) or the members of the groups its filter names (`group.member.added`).
 */
export async function runTrigger(deps: Deps, actor: Actor, trigger: TriggerRow, source: 'schedule' | 'runNow', today = utcDay()): Promise<{ created: number; skipped: number }> {
  const membership = membershipClient(deps.internal);
  let subjects: Subject[];
  let keyOf: (s: Subject) => string;
  let facts: Map<string, PersonFacts> | undefined;
  if (trigger.triggerKind === 'schedule') {
    const { conds, conjs } = await treeOf(deps.db, trigger.churchId, { triggerId: trigger.id });
    const test = compileTree(conds, conjs);
    const people = (await membership.peopleFacts(trigger.churchId)).filter((p) => test(p, today));
    facts = factsById(people);
    subjects = people.map((p) => ({ type: 'person', id: p.id, label: p.displayName }));
    const period = trigger.recurs === 'daily' ? `day:${today}` : periodOf(trigger.recurs ?? 'none', today);
    keyOf = (s) => `schedule|${period}|${s.id}`;
  } else {
    const filter = parseFilter(trigger.conditions);
    if (trigger.eventType === 'person.created' || trigger.eventType === 'person.updated') {
      const people = (await membership.peopleFacts(trigger.churchId)).filter((p) =>
        matchesFilter({ 'person.membershipStatus': p.membershipStatus, 'person.gender': p.gender, 'person.maritalStatus': p.maritalStatus }, filter),
      );
      facts = factsById(people);
      subjects = people.map((p) => ({ type: 'person', id: p.id, label: p.displayName }));
    } else if (trigger.eventType === 'group.member.added') {
      const groups = pinned(filter, 'group.id');
      if (!groups.length) throw badRequest('conditions', 'Run now needs a Group condition on this trigger');
      const members = (await Promise.all(groups.map((g) => membership.groupMembers(trigger.churchId, g)))).flat();
      subjects = [...new Map(members.map((m) => [m.personId, { type: 'person', id: m.personId, label: m.displayName }])).values()];
    } else throw badRequest('eventType', `Run now is not available for ${trigger.eventType ?? 'this trigger'}: the event has no current set of people`);
    keyOf = (s) => `runNow|${today}|${s.id}`;
  }
  facts ??= await subjectFacts(deps, trigger.churchId, subjects.map((s) => s.id));
  const created = await fire(deps, actor, subjects.map((subject) => ({ trigger, subject, eventType: source, eventKey: keyOf(subject) })), facts);
  return { created, skipped: subjects.length - created };
}

/** The ids a filter pins a field to (`=` or `in`). */
function pinned(node: FilterNode | null, field: string): string[] {
  if (!node) return [];
  if (node.type === 'group') return (node.children ?? []).flatMap((c) => pinned(c, field));
  if (node.field !== field || !node.value) return [];
  return node.operator === '=' ? [node.value] : node.operator === 'in' ? node.value.split(',').map((s) => s.trim()).filter(Boolean) : [];
}

/** Every active schedule trigger (of one church, or of all), once a day with the automations. */
export async function runScheduledTriggers(deps: Deps, opts: { date?: string; churchId?: string }, job: JobRun): Promise<number> {
  const list = await activeScheduleTriggers(deps.db, opts.churchId);
  let created = 0;
  const failed: string[] = [];
  for (const trigger of list) {
    try {
      created += (await runTrigger(deps, systemActor(trigger.churchId, job.id, job.log), trigger, 'schedule', opts.date)).created;
    } catch (err) {
      failed.push(`${trigger.id}: ${(err as Error).message}`);
    }
  }
  if (failed.length) throw new Error(`schedule triggers failed: ${failed.join('; ').slice(0, 500)}`);
  return created;
}

/**
 * An execution's `retry`, `pause` or `resume`: a pending one is paused; one that failed (or was paused) is tried
 * again, its card started now or the new error kept on the row. 400 naming `id` when the action does not apply.
 */
export async function changeExecution(deps: Deps, actor: Actor, id: string, action: 'retry' | 'pause' | 'resume'): Promise<Execution> {
  const execution = await getRow(deps.db, workflowExecutions, actor.churchId, id, 'Execution');
  if (action === 'pause') {
    if (execution.status !== 'pending') throw badRequest('id', 'only a pending execution can be paused');
    return setExecutionStatus(deps.db, actor.churchId, execution.id, 'paused');
  }
  if (execution.status === 'success') throw badRequest('id', 'the execution already succeeded');
  if (action === 'resume' && execution.status !== 'paused') throw badRequest('id', 'only a paused execution can be resumed');
  const [trigger] = await rowsByIds(deps.db, workflowTriggers, actor.churchId, [execution.triggerId]);
  if (!trigger) throw badRequest('id', 'the trigger no longer exists');
  const facts = await subjectFacts(deps, actor.churchId, execution.subjectType === 'person' ? [execution.subjectId] : []);
  return deps.queue.transaction(deps.db, (tx) => attempt(deps, tx, actor, execution, trigger, facts));
}
