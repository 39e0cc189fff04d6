import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, isNull, max, ne, notInArray, type SQL } from 'drizzle-orm';
import { getRow, notFound, rowsByIds, utcMidnight, type DbOrTx } from '@church/common';
import { sessions, visitSessions, visits } from '../db/schema';
import { deleteEmptyVisits } from './sessions';

// Visits (a person at a service on a date) and the visit sessions joining them to group sessions.

export type VisitRow = typeof visits.$inferSelect;

/** Unfiltered lists of a growing table answer the most recent rows only (README: "Choices"). */
export const RECENT_LIMIT = 1000;

/** Visits with their visit sessions, each with its session nested, in the given order. */
export async function withVisitSessions(db: DbOrTx, churchId: string, rows: VisitRow[]) {
  const ids = rows.map((v) => v.id);
  const links = ids.length
    ? await db
        .select()
        .from(visitSessions)
        .where(and(eq(visitSessions.churchId, churchId), inArray(visitSessions.visitId, ids)))
        .orderBy(visitSessions.createdAt)
    : [];
  const sessionById = new Map((await rowsByIds(db, sessions, churchId, [...new Set(links.map((l) => l.sessionId))])).map((s) => [s.id, s]));
  return rows.map((v) => ({
    ...v,
    visitSessions: links
      .filter((l) => l.visitId === v.id)
      .map((l) => ({ id: l.id, visitId: l.visitId, sessionId: l.sessionId, session: sessionById.get(l.sessionId) })),
  }));
}

/** A person's visits, newest first; without a person, the church's most recent visits. */
export async function listVisits(db: DbOrTx, churchId: string, personId?: string): Promise<VisitRow[]> {
  const where = personId ? and(eq(visits.churchId, churchId), eq(visits.personId, personId)) : eq(visits.churchId, churchId);
  const query = db.select().from(visits).where(where).orderBy(desc(visits.visitDate), desc(visits.createdAt));
  return personId ? query : query.limit(RECENT_LIMIT);
}

export type VisitSessionRow = typeof visitSessions.$inferSelect;

/** Deletes a visit with its visit sessions; answers both as they were. */
export async function deleteVisit(tx: DbOrTx, churchId: string, id: string): Promise<{ visit: VisitRow; links: VisitSessionRow[] }> {
  const [visit] = await tx.delete(visits).where(and(eq(visits.churchId, churchId), eq(visits.id, id))).returning();
  if (!visit) throw notFound('Visit');
  const links = await tx.delete(visitSessions).where(and(eq(visitSessions.churchId, churchId), eq(visitSessions.visitId, id))).returning();
  return { visit, links };
}

/** The person's visits at the service (or at no service) on the date: one, or none (the unique index). */
const visitOf = (churchId: string, personId: string, serviceId: string | null, visitDate: Date) =>
  and(eq(visits.churchId, churchId), eq(visits.personId, personId), eq(visits.visitDate, visitDate), serviceId ? eq(visits.serviceId, serviceId) : isNull(visits.serviceId))!;

/** The person's visit at the service (or at no service) on the date, created when missing (`created`). */
export async function findOrCreateVisit(tx: DbOrTx, churchId: string, personId: string, serviceId: string | null, visitDate: Date, addedBy: string): Promise<{ visit: VisitRow; created: boolean }> {
  const [found] = await tx.select().from(visits).where(visitOf(churchId, personId, serviceId, visitDate)).limit(1);
  if (found) return { visit: found, created: false };
  const [created] = await tx
    .insert(visits)
    .values({ id: randomUUID(), churchId, personId, serviceId, visitDate, checkinTime: new Date(), addedBy })
    .returning();
  return { visit: created!, created: true };
}

/** Links a visit to a session unless it already is; answers the new link (none when it was there). */
export async function linkVisitSession(tx: DbOrTx, churchId: string, visitId: string, sessionId: string): Promise<VisitSessionRow | undefined> {
  const [link] = await tx.insert(visitSessions).values({ id: randomUUID(), churchId, visitId, sessionId }).onConflictDoNothing().returning();
  return link;
}

/** The latest date any of the people visited the service, or null. */
export async function lastLoggedDate(db: DbOrTx, churchId: string, serviceId: string, personIds: string[]): Promise<Date | null> {
  if (!personIds.length) return null;
  const [row] = await db
    .select({ last: max(visits.visitDate) })
    .from(visits)
    .where(and(eq(visits.churchId, churchId), eq(visits.serviceId, serviceId), inArray(visits.personId, personIds)));
  return row?.last ? new Date(row.last) : null;
}

/**
 * The people's visits at the service on the date. The people's visits of the date are read through the unique
 * index (church, person, date, service) and the service's kept in code: with the service in the SQL, the generic
 * plan of the prepared statement filters every visit of the date at the service instead (see repos/checkin.ts).
 */
export async function visitsOn(db: DbOrTx, churchId: string, serviceId: string, visitDate: Date, personIds: string[]): Promise<VisitRow[]> {
  if (!personIds.length) return [];
  const rows = await db
    .select()
    .from(visits)
    .where(and(eq(visits.churchId, churchId), inArray(visits.personId, personIds), eq(visits.visitDate, visitDate)));
  return rows.filter((v) => v.serviceId === serviceId);
}

/**
 * Visit sessions with the visit's person (as `personId` and in `visit`) and the session nested; `groupIds` narrows
 * to a leader's groups.
 * Without a session, the most recent ones (by session date).
 */
export async function listVisitSessions(db: DbOrTx, churchId: string, opts: { sessionId?: string; id?: string; groupIds: string[] | null }) {
  const conditions: SQL[] = [eq(visitSessions.churchId, churchId)];
  if (opts.sessionId) conditions.push(eq(visitSessions.sessionId, opts.sessionId));
  if (opts.id) conditions.push(eq(visitSessions.id, opts.id));
  if (opts.groupIds) {
    if (!opts.groupIds.length) return [];
    conditions.push(inArray(sessions.groupId, opts.groupIds));
  }
  const query = db
    .select({ visitSession: visitSessions, personId: visits.personId, session: sessions })
    .from(visitSessions)
    .innerJoin(sessions, and(eq(sessions.id, visitSessions.sessionId), eq(sessions.churchId, churchId)))
    .innerJoin(visits, and(eq(visits.id, visitSessions.visitId), eq(visits.churchId, churchId)))
    .where(and(...conditions))
    .orderBy(desc(sessions.sessionDate), visits.personId);
  const rows = opts.sessionId || opts.id ? await query : await query.limit(RECENT_LIMIT);
  return rows.map((r) => ({ ...r.visitSession, personId: r.personId, session: r.session, visit: { id: r.visitSession.visitId, personId: r.personId } }));
}

/** Removes visit sessions and then the visits left without any; answers both as they were. */
async function unlink(tx: DbOrTx, churchId: string, where: SQL): Promise<{ links: VisitSessionRow[]; visits: VisitRow[] }> {
  const links = await tx
    .delete(visitSessions)
    .where(and(eq(visitSessions.churchId, churchId), where))
    .returning();
  return { links, visits: await deleteEmptyVisits(tx, churchId, links.map((r) => r.visitId)) };
}

/** Removes one visit session (and its visit when it attended nothing else). */
export const unlinkVisitSession = (tx: DbOrTx, churchId: string, id: string) => unlink(tx, churchId, eq(visitSessions.id, id));

/** Removes a person from a session: their visit sessions of it (and each visit that attended nothing else). */
export function unlinkPerson(tx: DbOrTx, churchId: string, personId: string, sessionId: string) {
  const ofPerson = tx.select({ id: visits.id }).from(visits).where(and(eq(visits.churchId, churchId), eq(visits.personId, personId)));
  return unlink(tx, churchId, and(eq(visitSessions.sessionId, sessionId), inArray(visitSessions.visitId, ofPerson))!);
}

/**
 * An update of a visit that would make it a second visit of its person at a service on a date (a person merged
 * into another who attended the same service that day, as B1Admin's merge moves each visit of the removed person)
 * is folded into the visit already there: its visit sessions move over (those the other visit already has are
 * dropped), it is deleted, and the visit already there is answered. `undefined` when the update makes no such
 * duplicate (it is then saved as any update). Another church's visit is a 404.
 */
export async function foldVisit(
  tx: DbOrTx,
  churchId: string,
  item: { id: string; personId?: string; serviceId?: string | null; visitDate?: Date },
): Promise<{ into: VisitRow; folded: VisitRow } | undefined> {
  const current = await getRow(tx, visits, churchId, item.id, 'Visit');
  const personId = item.personId ?? current.personId;
  const serviceId = item.serviceId === undefined ? current.serviceId : item.serviceId;
  const visitDate = item.visitDate ? utcMidnight(item.visitDate) : current.visitDate;
  const [other] = await tx
    .select()
    .from(visits)
    .where(and(visitOf(churchId, personId, serviceId, visitDate), ne(visits.id, current.id)))
    .limit(1);
  if (!other) return undefined;
  const held = tx.select({ sessionId: visitSessions.sessionId }).from(visitSessions).where(and(eq(visitSessions.churchId, churchId), eq(visitSessions.visitId, other.id)));
  await tx
    .update(visitSessions)
    .set({ visitId: other.id })
    .where(and(eq(visitSessions.churchId, churchId), eq(visitSessions.visitId, current.id), notInArray(visitSessions.sessionId, held)));
  await deleteVisit(tx, churchId, current.id);
  return { into: other, folded: current };
}
