import { and, count, desc, eq, gte, lt, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { auditLogs } from '../db/schema';

export type AuditRow = typeof auditLogs.$inferSelect;
export type AuditEntry = Omit<typeof auditLogs.$inferInsert, 'id' | 'createdAt'>;

export interface AuditFilter {
  category?: string;
  module?: string;
  userId?: string;
  personId?: string;
  entityType?: string;
  entityId?: string;
  startDate?: Date;
  /** exclusive */
  endDate?: Date;
  limit: number;
  offset: number;
}

export async function insertAudit(db: DbOrTx, id: string, entry: AuditEntry): Promise<void> {
  await db.insert(auditLogs).values({ id, ...entry });
}

/** Many entries at once (a batch of reported changes), with the times they happened. */
export async function insertAudits(db: DbOrTx, entries: Array<typeof auditLogs.$inferInsert>): Promise<void> {
  for (let i = 0; i < entries.length; i += 500) await db.insert(auditLogs).values(entries.slice(i, i + 500)).onConflictDoNothing();
}

/** A page of the church's entries, newest first, and how many match in all. */
export async function auditPage(db: DbOrTx, churchId: string, f: AuditFilter): Promise<{ rows: AuditRow[]; total: number }> {
  const where: Array<SQL | undefined> = [eq(auditLogs.churchId, churchId)];
  if (f.category) where.push(eq(auditLogs.category, f.category));
  if (f.module) where.push(eq(auditLogs.module, f.module));
  if (f.userId) where.push(eq(auditLogs.userId, f.userId));
  if (f.personId) where.push(eq(auditLogs.personId, f.personId));
  if (f.entityType) where.push(eq(auditLogs.entityType, f.entityType));
  if (f.entityId) where.push(eq(auditLogs.entityId, f.entityId));
  if (f.startDate) where.push(gte(auditLogs.createdAt, f.startDate));
  if (f.endDate) where.push(lt(auditLogs.createdAt, f.endDate));
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(auditLogs)
      .where(and(...where))
      .orderBy(desc(auditLogs.createdAt), desc(auditLogs.id))
      .limit(f.limit)
      .offset(f.offset),
    db.select({ n: count() }).from(auditLogs).where(and(...where)),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}
