import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { assignments } from '../db/schema';

/** A position's assignments go with it (nobody can serve in a position that is gone). */
export async function deletePositionParts(tx: DbOrTx, churchId: string, positionId: string): Promise<void> {
  await tx.delete(assignments).where(and(eq(assignments.churchId, churchId), eq(assignments.positionId, positionId)));
}
