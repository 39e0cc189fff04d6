import { and, asc, eq, gte, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { blockoutDates } from '../db/schema';

/** A person's blockout dates, soonest first. */
export const blockoutsOfPerson = (db: DbOrTx, churchId: string, personId: string) =>
  db.select().from(blockoutDates).where(and(eq(blockoutDates.churchId, churchId), eq(blockoutDates.personId, personId))).orderBy(asc(blockoutDates.startDate));

/** The church's blockout dates that end on or after `day`, soonest first. */
export const upcomingBlockouts = (db: DbOrTx, churchId: string, day: string) =>
  db.select().from(blockoutDates).where(and(eq(blockoutDates.churchId, churchId), gte(blockoutDates.endDate, day))).orderBy(asc(blockoutDates.startDate));

/** The rows of one person (a caller who may change only their own); none without a person. */
export const ofPerson = (personId: string | null) => (personId ? eq(blockoutDates.personId, personId) : sql`false`);
