import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { rowsByIds, unauthorized, type DbOrTx, type TenantTable } from '@church/common';
import { plans } from '../db/schema';

/** The church's plans with these ids (others left out). */
export const planMinistries = (db: DbOrTx, churchId: string, ids: string[]) => rowsByIds(db, plans, churchId, ids);

/**
 * The rows a caller may change when they may edit only some ministries (`ministries`; `undefined`: all of them):
 * rows of those ministries (`column` is the ministry), or, for a plan's own rows (`column` is their `planId`), rows
 * of the plans of those ministries. `undefined` when there is no narrowing.
 */
export function ministryScope(ministries: Set<string> | undefined, column: PgColumn, of: 'ministry' | 'plan', churchId: string): SQL | undefined {
  if (!ministries) return undefined;
  if (!ministries.size) return sql`false`;
  const ids = [...ministries];
  if (of === 'ministry') return inArray(column, ids);
  return inArray(column, sql`(select ${plans.id} from ${plans} where ${plans.churchId} = ${churchId} and ${inArray(plans.ministryId, ids)})`);
}

/**
 * After a write, inside its transaction: every written row must still be in the caller's scope (a row moved to
 * another ministry's plan, or created in one, is refused and the transaction rolls back).
 */
export async function refuseOutside(tx: DbOrTx, table: TenantTable, churchId: string, ids: string[], scope: SQL | undefined, refuse: () => Error): Promise<void> {
  if (!scope || !ids.length) return;
  const [found] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(table as PgTable)
    .where(and(eq(table.churchId, churchId), inArray(table.id, ids), sql`not coalesce(${scope}, false)`));
  if ((found?.n ?? 0) > 0) throw refuse();
}

/** A 401 in the error shape for a caller outside a record's ministry. */
export const outsideMinistry = () => unauthorized('Only holders of Plans.Edit and members of the ministry can do this');
