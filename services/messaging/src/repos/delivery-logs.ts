import { randomUUID } from 'node:crypto';
import { and, desc, eq, gte, lte } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { deliveryLogs } from '../db/schema';

export type DeliveryLogRow = typeof deliveryLogs.$inferSelect;

/** One delivery attempt of a push, SMS or email. */
export interface LogEntry {
  churchId: string;
  personId?: string | null;
  contentType?: string | null;
  contentId?: string | null;
  channel: 'push' | 'email' | 'sms' | 'socket';
  recipient?: string | null;
  provider?: string | null;
  status: string;
  providerMessageId?: string | null;
  error?: string | null;
  sentTextId?: string | null;
}

export async function writeLogs(db: DbOrTx, entries: LogEntry[]): Promise<DeliveryLogRow[]> {
  if (!entries.length) return [];
  return db
    .insert(deliveryLogs)
    .values(entries.map((e) => ({ id: randomUUID(), ...e })))
    .returning();
}

export async function findLog(db: DbOrTx, churchId: string, id: string): Promise<DeliveryLogRow | undefined> {
  const [row] = await db.select().from(deliveryLogs).where(and(eq(deliveryLogs.churchId, churchId), eq(deliveryLogs.id, id)));
  return row;
}

/** The logs of one content (a sent text, a notification's subject), newest first. */
export async function logsOfContent(db: DbOrTx, churchId: string, contentType: string, contentId: string, limit = 1000): Promise<DeliveryLogRow[]> {
  return db
    .select()
    .from(deliveryLogs)
    .where(and(eq(deliveryLogs.churchId, churchId), eq(deliveryLogs.contentType, contentType), eq(deliveryLogs.contentId, contentId)))
    .orderBy(desc(deliveryLogs.attemptedAt))
    .limit(limit);
}

/** A person's logs between two instants (either may be open), newest first. */
export async function logsOfPerson(db: DbOrTx, churchId: string, personId: string, range: { from?: Date; to?: Date }, limit = 1000): Promise<DeliveryLogRow[]> {
  return db
    .select()
    .from(deliveryLogs)
    .where(
      and(
        eq(deliveryLogs.churchId, churchId),
        eq(deliveryLogs.personId, personId),
        range.from ? gte(deliveryLogs.attemptedAt, range.from) : undefined,
        range.to ? lte(deliveryLogs.attemptedAt, range.to) : undefined,
      ),
    )
    .orderBy(desc(deliveryLogs.attemptedAt))
    .limit(limit);
}

export async function recentLogs(db: DbOrTx, churchId: string, limit: number): Promise<DeliveryLogRow[]> {
  return db.select().from(deliveryLogs).where(eq(deliveryLogs.churchId, churchId)).orderBy(desc(deliveryLogs.attemptedAt)).limit(limit);
}
