import { and, eq } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { badRequest, type DbOrTx, type TenantTable } from '@church/common';

/**
 * A referenced record of the caller's church, or a 400 naming the field that referenced it (a save must not
 * point at another church's plan or at nothing).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function requireRef<T = Record<string, any>>(db: DbOrTx, table: TenantTable, churchId: string, id: string, param: string, what: string): Promise<T> {
  const [row] = await db.select().from(table as PgTable).where(and(eq(table.churchId, churchId), eq(table.id, id))).limit(1);
  if (!row) throw badRequest(param, `${what} not found`);
  return row as T;
}
