import type { z } from 'zod';
import { notFound, reportChanges, utcMidnight, validationFailed, type Actor, type ChangeInput, type DbOrTx, type ErrorItem } from '@church/common';
import { listenedBy } from '../clients/membership';
import type { AttendanceDeps } from '../deps';
import { runCheckin, type CheckinAnswer, type CheckinInput } from '../repos/checkin';
import { lastLoggedDate, visitsOn, withVisitSessions } from '../repos/visits';
import type { CheckinResult as CheckinResultSchema } from '../schemas';
import { RECORDED, SESSION_CREATED } from './changes';
import { householdScope, type PeopleCache } from './people';
import { securityCode } from './security-code';

type CheckinResult = z.output<typeof CheckinResultSchema>;

export interface CheckinItem {
  personId: string;
  visitSessions: Array<{ session: { serviceTimeId: string; groupId: string } }>;
}

/** What check-in uses: the database, membership (its people, what the church listens for), the queue and the config. */
export type CheckinDeps = Pick<AttendanceDeps, 'db' | 'module' | 'queue' | 'internal' | 'config'>;

/**
 * The people's visits at the service on the last date any of them was there, with their sessions. A caller with
 * only Attendance.Checkin reads their own household's (401 otherwise: `householdScope`).
 */
export async function lastCheckin(deps: Pick<CheckinDeps, 'db' | 'internal'>, actor: Actor, people: PeopleCache, serviceId: string, personIds: string[]) {
  await householdScope(actor, deps.internal, people, ['Attendance.View', 'Attendance.Edit'], personIds);
  const { db } = deps;
  const last = await lastLoggedDate(db, actor.churchId, serviceId, personIds);
  if (!last) return [];
  return withVisitSessions(db, actor.churchId, await visitsOn(db, actor.churchId, serviceId, last, personIds));
}

/**
 * A check-in as a caller submits it: a caller with only Attendance.Checkin submits their own household's (401
 * otherwise), and every submitted person must be a live person of the church (the version probe, skipped while a
 * recent one holds; a call only for what is not kept as live), then `submitCheckin`.
 */
export async function checkin(
  deps: CheckinDeps,
  actor: Actor,
  people: PeopleCache,
  input: { serviceId: string; peopleIds: string[]; items: CheckinItem[]; param: (i: number, field: string) => string },
) {
  const submitted = input.items.map((item) => item.personId);
  // the household rule covers everyone whose visit the submission writes or removes
  const scope = await householdScope(actor, deps.internal, people, ['Attendance.Edit'], [...input.peopleIds, ...submitted]);
  const maxAgeMs = deps.config.CHECKIN_PEOPLE_MAX_AGE_MS;
  const known = scope.known ?? (submitted.length ? await people.households(deps.internal, actor.churchId, submitted, maxAgeMs) : new Map());
  return submitCheckin(deps, actor, { ...input, known });
}

/**
 * Submits a check-in at a service for today. Sessions are found or created per (group, service time, today).
 * The visits today at this service of everyone in scope (the `peopleIds` of the query and the people of the
 * body) are replaced by the submission: a submitted person keeps their visit (so a child moved to another
 * group is moved, not duplicated), gains the missing visit sessions and loses the stale ones; a person in
 * scope but absent from the body loses their visit. One statement whatever the number of people. A check-in is
 * the Sunday storm the audit log leaves out (as the apps' own API does): it is reported only as its events (each
 * visit an `attendance.recorded`, each session it opened a `session.created`), and only those the church listens
 * for (a webhook or a workflow trigger; `listenedEvents`), in the same transaction, so a committed check-in is
 * always heard and a refused one never, and one nobody listens for costs no job. A refused submission writes
 * nothing. The answer is built from what the statement wrote, not read back.
 */
export async function submitCheckin(
  deps: Pick<CheckinDeps, 'db' | 'module' | 'queue' | 'internal'>,
  actor: Actor,
  input: {
    serviceId: string;
    peopleIds: string[];
    items: CheckinItem[];
    /** the live people of the church among the submitted ones (from membership) */
    known: ReadonlySet<string> | ReadonlyMap<string, unknown>;
    param: (i: number, field: string) => string;
  },
) {
  const { serviceId, items } = input;
  const { churchId } = actor;
  const at = new Date();
  // every visit is today's and of this submission: each date is formatted once (also the answer's ISO text)
  const visitDate = utcMidnight(at).toISOString();
  const checkinTime = at.toISOString();
  // the wanted (group, service time) pairs, each once, and each person's: a session wanted twice by one person is one visit session
  const keyOf = new Map<string, number>();
  const keys: CheckinInput['keys'] = [];
  const links: CheckinInput['links'] = [];
  const people: string[] = [];
  const scope = new Set(input.peopleIds);
  let peopleKnown = true;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    people.push(item.personId);
    scope.add(item.personId);
    if (!input.known.has(item.personId)) peopleKnown = false;
    const first = links.length;
    for (const { session } of item.visitSessions) {
      const name = `${session.groupId}|${session.serviceTimeId}`;
      let key = keyOf.get(name);
      if (key === undefined) {
        key = keys.push({ groupId: session.groupId, serviceTimeId: session.serviceTimeId });
        keyOf.set(name, key);
      }
      let twice = false;
      for (let l = first; l < links.length && !twice; l++) twice = links[l]!.key === key;
      if (!twice) links.push({ item: i + 1, key });
    }
  }
  const checkin: CheckinInput = {
    churchId,
    serviceId,
    day: visitDate.slice(0, 10),
    sessionDate: visitDate,
    at: checkinTime,
    userId: actor.id,
    scope: [...scope],
    peopleKnown,
    people,
    keys,
    links,
  };
  const listening = await listenedBy(deps.internal, churchId);
  const run = async (tx: DbOrTx) => {
    const answer = await runCheckin(tx, checkin);
    if (!answer.service) throw notFound('Service');
    if (!answer.written) throw validationFailed(refusals(items, new Set(answer.times), input.known, input.param));
    const result = checkinResult(answer, items, keys, serviceId, visitDate, checkinTime);
    await reportChanges(deps, checkinChanges(churchId, answer, result, visitDate), { req: actor, tx, listening });
    return result;
  };
  // Nobody listens: nothing will be reported, and the statement is atomic on its own (a refused one writes nothing),
  // so it runs without a transaction around it. Otherwise the report's job is handed on as the transaction commits
  // (`queue.transaction`: no relay timers on this hot path).
  if (listening && !listening.has(RECORDED) && !listening.has(SESSION_CREATED)) return run(deps.db);
  return deps.queue.transaction(deps.db, run);
}

/** The answer: the submission's visits in body order, each with its visit sessions. */
function checkinResult(answer: CheckinAnswer, items: CheckinItem[], keys: CheckinInput['keys'], serviceId: string, visitDate: string, checkinTime: string): CheckinResult {
  const visitIds = answer.visits ?? [];
  const visits: CheckinResult['visits'] = items.map((item, i) => ({
    id: visitIds[i]!,
    personId: item.personId,
    serviceId,
    visitDate,
    checkinTime,
    visitSessions: [],
  }));
  // a person's links come kept ones first (oldest first), then new ones in body order
  for (const [item, id, sessionId, key] of answer.links ?? []) {
    const visit = visits[item - 1]!;
    const { groupId, serviceTimeId } = keys[key - 1]!;
    visit.visitSessions.push({ id, visitId: visit.id, sessionId, session: { id: sessionId, groupId, serviceTimeId, sessionDate: visitDate } });
  }
  return { securityCode: securityCode(), visits };
}

/**
 * What a check-in did, as events only (`logged: false`): each visit of the submission checked in (the visit as
 * answered is `attendance.recorded`'s payload) and each session it created (`session.created`). The visits it
 * replaced are no event, so they are not reported.
 */
function checkinChanges(churchId: string, answer: CheckinAnswer, result: CheckinResult, visitDate: string): ChangeInput[] {
  const changes: ChangeInput[] = [];
  for (const [id, groupId, serviceTimeId] of answer.sessions ?? []) {
    changes.push({ churchId, entityType: 'session', entityId: id, action: 'created', event: SESSION_CREATED, after: { id, groupId, serviceTimeId, sessionDate: visitDate }, logged: false });
  }
  for (const visit of result.visits) {
    const { personId, serviceId, checkinTime } = visit;
    changes.push({ churchId, entityType: 'visit', entityId: visit.id, action: 'checkedIn', event: RECORDED, after: { personId, serviceId, visitDate: visit.visitDate, checkinTime }, data: visit, logged: false });
  }
  return changes;
}

/**
 * Why a submission was refused: a person who is not one of the church's, a person submitted twice, a time that
 * is not a live time of the service.
 */
function refusals(
  items: CheckinItem[],
  times: Set<string>,
  known: ReadonlySet<string> | ReadonlyMap<string, unknown>,
  param: (i: number, field: string) => string,
): ErrorItem[] {
  const errors: ErrorItem[] = [];
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (!known.has(item.personId)) errors.push({ msg: 'not a person of this church', param: param(i, 'personId'), location: 'body' });
    else if (seen.has(item.personId)) errors.push({ msg: 'person submitted twice', param: param(i, 'personId'), location: 'body' });
    seen.add(item.personId);
    item.visitSessions.forEach(({ session }, j) => {
      if (!times.has(session.serviceTimeId)) {
        errors.push({ msg: 'not a service time of this service', param: param(i, `visitSessions[${j}].session.serviceTimeId`), location: 'body' });
      }
    });
  });
  return errors;
}
