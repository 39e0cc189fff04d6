import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { planTypes } from '../db/schema';

/** A ministry's plan types by name. */
export const planTypesOfMinistry = (db: DbOrTx, churchId: string, ministryId: string) =>
  db.select().from(planTypes).where(and(eq(planTypes.churchId, churchId), eq(planTypes.ministryId, ministryId))).orderBy(asc(planTypes.name));
