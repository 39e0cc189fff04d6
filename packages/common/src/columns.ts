import { boolean, timestamp, uuid } from 'drizzle-orm/pg-core';

/** The primary key: a UUID generated in the service (spec convention 3). */
export const id = () => uuid('id').primaryKey();
/** The tenant: every church-owned table has it, and every index that serves a query leads with it. */
export const churchId = () => uuid('church_id').notNull();
/** Soft delete (NOTES.md) for records that history keeps referring to. */
export const removed = () => boolean('removed').notNull().default(false);
/** Creation and update times. */
export const timestamps = () => ({
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
/** A plain timestamptz column. */
export const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
