import { and, desc, eq, or, sql, type SQL } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { prepared, type DbOrTx } from '@church/common';
import { customers, eventLogs } from '../db/schema';

/**
 * The church's gateway event log, newest first, with the person of the event's customer where the customer is
 * known here (`''` otherwise: the staff app's event list reads the person's id as text), and `created` beside
 * `createdAt`, as the app reads it. `type` matches the event type or the entry's status, so the app's
 * `/eventLog/type/failed` finds the failed payments.
 */
export async function listEventLogs(db: DbOrTx, churchId: string, filter: { id?: string; type?: string } = {}) {
  const where: SQL[] = [eq(eventLogs.churchId, churchId)];
  if (filter.id) where.push(eq(eventLogs.id, filter.id));
  if (filter.type) where.push(or(eq(eventLogs.eventType, filter.type), eq(eventLogs.status, filter.type))!);
  const rows = await db
    .select({ log: eventLogs, personId: sql<string | null>`(select c.person_id from ${customers} c where c.church_id = ${eventLogs.churchId} and c.provider_customer_id = ${eventLogs.customerId} limit 1)` })
    .from(eventLogs)
    .where(and(...where))
    .orderBy(desc(eventLogs.createdAt))
    .limit(1000);
  return rows.map((r) => ({ ...r.log, personId: r.personId ?? '', created: r.log.createdAt }));
}

const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;
/** The event-log entry of a processed event (rendered once: one per webhook event). */
const insertEventLog = prepared(
  sql`insert into ${eventLogs} (id, church_id, customer_id, provider, provider_id, event_type, status, message, resolved) values (${p('id', 'uuid')}, ${p('churchId', 'uuid')}, ${p('customerId', 'text')}, ${p('provider', 'text')}, ${p('providerId', 'text')}, ${p('eventType', 'text')}, ${p('status', 'text')}, ${p('message', 'text')}, true)`,
);

/** Writes the log entry of an applied gateway event, in the event's transaction. */
export async function logGatewayEvent(tx: DbOrTx, entry: { churchId: string; customerId: string | null; provider: string; providerId: string; eventType: string; status: string; message: string }): Promise<void> {
  await insertEventLog(tx, { id: randomUUID(), ...entry });
}
