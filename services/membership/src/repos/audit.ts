import { and, count, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { prepared, type DbOrTx } from '@church/common';
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

const column = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}[]`;
/**
 * The entries as one array per column, inserted by one prepared statement: every module's reported changes come
 * here (an autofill's 40 assignments, a batch of 500 gifts), and rendering a multi-row drizzle insert cost more of
 * the job's CPU than PostgreSQL spent writing the rows. An entry already written (a retried job) is left alone.
 */
const insertAuditColumns = prepared(sql`
  insert into audit_logs (id, church_id, user_id, person_id, category, action, entity_type, entity_id, details, ip_address, module, batch_id, created_at)
  select * from unnest(${column('id', 'uuid')}, ${column('churchId', 'uuid')}, ${column('userId', 'uuid')}, ${column('personId', 'uuid')},
    ${column('category', 'text')}, ${column('action', 'text')}, ${column('entityType', 'text')}, ${column('entityId', 'text')},
    ${column('details', 'text')}, ${column('ipAddress', 'text')}, ${column('module', 'text')}, ${column('batchId', 'uuid')}, ${column('createdAt', 'timestamptz')})
  on conflict do nothing`);

/** Many entries at once (a batch of reported changes), with the times they happened. */
export async function insertAudits(db: DbOrTx, entries: Array<typeof auditLogs.$inferInsert>): Promise<void> {
  if (!entries.length) return;
  const of = <K extends keyof typeof auditLogs.$inferInsert>(key: K) => entries.map((e) => e[key] ?? null);
  await insertAuditColumns(db, {
    id: of('id'),
    churchId: of('churchId'),
    userId: of('userId'),
    personId: of('personId'),
    category: of('category'),
    action: of('action'),
    entityType: of('entityType'),
    entityId: of('entityId'),
    details: of('details'),
    ipAddress: of('ipAddress'),
    module: entries.map((e) => e.module ?? 'membership'),
    batchId: of('batchId'),
    createdAt: entries.map((e) => (e.createdAt ?? new Date()).toISOString()),
  });
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
