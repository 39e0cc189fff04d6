import { randomUUID } from 'node:crypto';
import { notFound, validationFailed, type Db, type ErrorItem } from '@church/common';
import { readCheckinState, sessionKey, writeCheckin, type CheckinWrites, type SessionKey } from '../repos/checkin';
import { lastLoggedDate, visitsOn, withVisitSessions } from '../repos/visits';
import { utcToday } from './dates';
import { securityCode } from './security-code';

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
 * scope but absent from the body loses their visit. Two statements whatever the number of people: one read,
 * then every write in one statement (atomic by itself: the isolation of the read-committed transaction it
 * replaces, without two more round trips for BEGIN and COMMIT). A refused submission writes nothing. The
 * answer is built from what was read and written, not read back.
 */
export async function submitCheckin(
  db: Db,
  input: { churchId: string; userId: string; serviceId: string; peopleIds: string[]; items: CheckinItem[]; param: (i: number, field: string) => string },
) {
  const { churchId, serviceId, items } = input;
  const today = utcToday();
  const at = new Date();
  const keys = new Map<string, SessionKey>();
  for (const { session } of items.flatMap((i) => i.visitSessions)) keys.set(sessionKey(session), { groupId: session.groupId, serviceTimeId: session.serviceTimeId });
  const scope = [...new Set([...input.peopleIds, ...items.map((i) => i.personId)])];
  const state = await readCheckinState(db, { churchId, serviceId, day: today, keys: [...keys.values()], personIds: scope });
  if (!state.times) throw notFound('Service');
  validate(items, state.times, input.param);

  const writes: CheckinWrites = { churchId, serviceId, day: today, at, userId: input.userId, sessions: [], touched: [], created: [], dropped: [], unlinked: [], linked: [] };
  for (const [key, k] of keys) if (!state.sessions.has(key)) writes.sessions.push({ id: randomUUID(), ...k });
  const planned = items.map((item) => {
    const prior = state.visits.get(item.personId);
    state.visits.delete(item.personId);
    const visitId = prior?.id ?? randomUUID();
    if (prior) writes.touched.push(visitId);
    else writes.created.push({ id: visitId, personId: item.personId });
    // wanted sessions by key; the id is unknown (null) until the write creates the session
    const wanted = new Map(item.visitSessions.map(({ session }) => [sessionKey(session), state.sessions.get(sessionKey(session)) ?? null]));
    const wantedIds = new Set(wanted.values());
    const have = prior?.links ?? [];
    writes.unlinked.push(...have.filter((l) => !wantedIds.has(l.sessionId)).map((l) => l.id));
    const links: Array<{ id: string; key: string; sessionId: string | null }> = [];
    for (const [key, sessionId] of wanted) {
      const kept = sessionId ? have.find((l) => l.sessionId === sessionId) : undefined;
      if (kept) links.push({ id: kept.id, key, sessionId });
      else {
        const link = { id: randomUUID(), key, sessionId };
        links.push(link);
        writes.linked.push({ id: link.id, visitId, sessionId, key: keys.get(key)! });
      }
    }
    // kept links first, in the order they were made, then the new ones (as reading them back would order them)
    const order = (l: { id: string }) => {
      const at = have.findIndex((h) => h.id === l.id);
      return at < 0 ? have.length : at;
    };
    return { visitId, personId: item.personId, links: links.sort((a, b) => order(a) - order(b)) };
  });
  // People in scope who were not submitted are no longer checked in.
  for (const visit of state.visits.values()) {
    writes.dropped.push(visit.id);
    writes.unlinked.push(...visit.links.map((l) => l.id));
  }
  const created = await writeCheckin(db, writes);

  const sessionById = new Map<string, { id: string; groupId: string; serviceTimeId: string; sessionDate: Date }>();
  for (const [key, k] of keys) {
    const id = state.sessions.get(key) ?? created.get(key);
    if (id) sessionById.set(id, { id, groupId: k.groupId, serviceTimeId: k.serviceTimeId, sessionDate: today });
  }
  const visits = planned.map((v) => ({
    id: v.visitId,
    personId: v.personId,
    serviceId,
    visitDate: today,
    checkinTime: at,
    visitSessions: v.links.map((l) => {
      const sessionId = l.sessionId ?? created.get(l.key)!;
      return { id: l.id, visitId: v.visitId, sessionId, session: sessionById.get(sessionId) };
    }),
  }));
  return { securityCode: securityCode(), visits };
}

function validate(items: CheckinItem[], times: Set<string>, param: (i: number, field: string) => string): void {
  const errors: ErrorItem[] = [];
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.personId)) errors.push({ msg: 'person submitted twice', param: param(i, 'personId'), location: 'body' });
    seen.add(item.personId);
    item.visitSessions.forEach(({ session }, j) => {
      if (!times.has(session.serviceTimeId)) {
        errors.push({ msg: 'not a service time of this service', param: param(i, `visitSessions[${j}].session.serviceTimeId`), location: 'body' });
      }
    });
  });
  if (errors.length) throw validationFailed(errors);
}
