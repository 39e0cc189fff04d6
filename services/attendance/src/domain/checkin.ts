import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { notFound, validationFailed, type Db, type ErrorItem } from '@church/common';
import { serviceTimes, services, visitSessions, visits } from '../db/schema';
import { findOrCreateSession } from '../repos/sessions';
import { lastLoggedDate, visitsOn, withVisitSessions, type VisitRow } from '../repos/visits';
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
 * scope but absent from the body loses their visit. One transaction.
 */
export async function submitCheckin(
  db: Db,
  input: { churchId: string; userId: string; serviceId: string; peopleIds: string[]; items: CheckinItem[]; param: (i: number, field: string) => string },
) {
  const { churchId, serviceId, items } = input;
  const today = utcToday();
  const saved = await db.transaction(async (tx) => {
    const [service] = await tx
      .select({ id: services.id })
      .from(services)
      .where(and(eq(services.churchId, churchId), eq(services.id, serviceId), eq(services.removed, false)))
      .limit(1);
    if (!service) throw notFound('Service');
    const times = new Set(
      (
        await tx
          .select({ id: serviceTimes.id })
          .from(serviceTimes)
          .where(and(eq(serviceTimes.churchId, churchId), eq(serviceTimes.serviceId, serviceId), eq(serviceTimes.removed, false)))
      ).map((t) => t.id),
    );
    validate(items, times, input.param);

    const sessionIds = new Map<string, string>();
    for (const { session } of items.flatMap((i) => i.visitSessions)) {
      const key = `${session.groupId}|${session.serviceTimeId}`;
      if (!sessionIds.has(key)) sessionIds.set(key, (await findOrCreateSession(tx, churchId, session.groupId, session.serviceTimeId, today)).id);
    }

    const scope = [...new Set([...input.peopleIds, ...items.map((i) => i.personId)])];
    const existing = new Map((await visitsOn(tx, churchId, serviceId, today, scope)).map((v) => [v.personId, v]));
    const links = existing.size
      ? await tx.select().from(visitSessions).where(and(eq(visitSessions.churchId, churchId), inArray(visitSessions.visitId, [...existing.values()].map((v) => v.id))))
      : [];

    const out: VisitRow[] = [];
    for (const item of items) {
      const wanted = new Set(item.visitSessions.map(({ session }) => sessionIds.get(`${session.groupId}|${session.serviceTimeId}`)!));
      const prior = existing.get(item.personId);
      existing.delete(item.personId);
      const visit = prior
        ? (await tx.update(visits).set({ checkinTime: new Date(), addedBy: input.userId, updatedAt: new Date() }).where(eq(visits.id, prior.id)).returning())[0]!
        : (await tx
            .insert(visits)
            .values({ id: randomUUID(), churchId, personId: item.personId, serviceId, visitDate: today, checkinTime: new Date(), addedBy: input.userId })
            .returning())[0]!;
      const have = links.filter((l) => l.visitId === visit.id);
      const stale = have.filter((l) => !wanted.has(l.sessionId)).map((l) => l.id);
      if (stale.length) await tx.delete(visitSessions).where(and(eq(visitSessions.churchId, churchId), inArray(visitSessions.id, stale)));
      const missing = [...wanted].filter((id) => !have.some((l) => l.sessionId === id));
      if (missing.length) await tx.insert(visitSessions).values(missing.map((sessionId) => ({ id: randomUUID(), churchId, visitId: visit.id, sessionId })));
      out.push(visit);
    }
    // People in scope who were not submitted are no longer checked in.
    const dropped = [...existing.values()].map((v) => v.id);
    if (dropped.length) {
      await tx.delete(visitSessions).where(and(eq(visitSessions.churchId, churchId), inArray(visitSessions.visitId, dropped)));
      await tx.delete(visits).where(and(eq(visits.churchId, churchId), inArray(visits.id, dropped)));
    }
    return withVisitSessions(tx, churchId, out);
  });
  return { securityCode: securityCode(), visits: saved };
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
