import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { funds } from '../db/schema';

/** A church's funds as its public donation forms list them: live and visible, by name. */
export async function visibleFunds(db: DbOrTx, churchId: string) {
  return db
    .select()
    .from(funds)
    .where(and(eq(funds.churchId, churchId), eq(funds.removed, false), eq(funds.visible, true)))
    .orderBy(asc(funds.name));
}
