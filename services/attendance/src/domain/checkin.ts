import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { listenedEvents, notFound, reportChanges, validationFailed, type ChangeInput, type Db, type DbOrTx, type ErrorItem, type ServiceDeps } from '@church/common';
import { runCheckin, type CheckinAnswer, type CheckinInput } from '../repos/checkin';
import { RECORDED, SESSION_CREATED } from './changes';
import { lastLoggedDate, visitsOn, withVisitSessions } from '../repos/visits';
import { utcMidnight } from '@church/common';
import type { CheckinResult as CheckinResultSchema } from '../schemas';
import { securityCode } from './security-code';

type CheckinResult = z.output<typeof CheckinResultSchema>;

export interface CheckinItem {
  personId: string;
  visitSessions: Array<{ session: { serviceTimeId: string; groupId: string } }>;
}

/** The people's visits at the service on the last date any of them was there, with their sessions. */
export async function lastCheckin(db: Db, churchId: string, serviceId: string, personIds: string[]) {
  const last = await lastLoggedDate(db, churchId, serviceId, personIds);
  if (!last) return [];
  return withVisitSessions(db, churchId, await visitsOn(db, churchId, serviceId, last, personIds));
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
  db: Db,
  audit: { deps: Pick<ServiceDeps, 'module' | 'queue' | 'internal'>; req: FastifyRequest },
  input: {
    churchId: string;
    userId: string;
    serviceId: string;
    peopleIds: string[];
    items: CheckinItem[];
    /** the live people of the church among the submitted ones (from membership) */
    known: ReadonlySet<string> | ReadonlyMap<string, unknown>;
    param: (i: number, field: string) => string;
  },
) {
  const { churchId, serviceId, items } = input;
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
    userId: input.userId,
    scope: [...scope],
    peopleKnown,
    people,
    keys,
    links,
  };
  const listening = await listenedEvents(audit.deps.internal, churchId);
  const run = async (tx: DbOrTx) => {
    const answer = await runCheckin(tx, checkin);
    if (!answer.service) throw notFound('Service');
    if (!answer.written) throw validationFailed(refusals(items, new Set(answer.times), input.known, input.param));
    const result = checkinResult(answer, items, keys, serviceId, visitDate, checkinTime);
    await reportChanges(audit.deps, checkinChanges(churchId, answer, result, visitDate), { req: audit.req, tx, listening });
    return result;
  };
  // Nobody listens: nothing will be reported, and the statement is atomic on its own (a refused one writes nothing),
  // so it runs without a transaction around it. Otherwise the report's job is handed on as the transaction commits
  // (`queue.transaction`: no relay timers on this hot path).
  if (listening && !listening.has(RECORDED) && !listening.has(SESSION_CREATED)) return run(db);
  return audit.deps.queue.transaction(db, run);
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
