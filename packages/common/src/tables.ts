import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/**
 * Tables every module may include in its own schema (`export { webhookEvents } from '@church/common/tables'`
 * in `src/db/schema.ts`, then `db:generate`). This file imports drizzle only, so drizzle-kit loads it cheaply.
 */

/**
 * Inbound provider webhooks, one row per (church, provider, provider event id): the de-duplication point of
 * `webhookIntake`. `processedAt` is set by the job that applied the event's effect; a redelivered event whose
 * row has none is handed to the job again (same deterministic job id).
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: uuid('id').primaryKey(),
    churchId: uuid('church_id').notNull(),
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().default(sql`now()`),
    processedAt: timestamp('processed_at', { withTimezone: true, mode: 'date' }),
    /** what the effect did (`donation created`, `ignored: unknown type` ...), for the event log */
    outcome: text('outcome'),
  },
  (t) => [uniqueIndex('webhook_events_church_provider_event_idx').on(t.churchId, t.provider, t.eventId), index('webhook_events_church_received_idx').on(t.churchId, t.receivedAt)],
);

/** One counter per church (see `snapshots.ts`); include it with the `bump_data_version()` trigger (DATA_VERSION_SQL). */
export const dataVersions = pgTable('data_versions', {
  churchId: uuid('church_id').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
});

/**
 * SQL for a custom migration (`drizzle-kit generate --custom`, then paste): the shared trigger function that
 * raises a church's data version once per writing transaction, and a deferred trigger on each named table.
 * The tables need a `church_id` column.
 */
export function dataVersionSql(tables: string[]): string {
  // One raise per church per transaction: the row this transaction already wrote (xmin is its own id) is left
  // as it is; ON CONFLICT still locks it, so the version is written exactly once before commit.
  const fn = `CREATE OR REPLACE FUNCTION bump_data_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  church uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.church_id ELSE NEW.church_id END;
BEGIN
  INSERT INTO data_versions AS v (church_id, version) VALUES (church, 1)
  ON CONFLICT (church_id) DO UPDATE SET version = v.version + 1 WHERE v.xmin <> pg_current_xact_id()::xid;
  RETURN NULL;
END
$$;`;
  const triggers = tables.map(
    (t) => `CREATE CONSTRAINT TRIGGER ${t}_data_version AFTER INSERT OR UPDATE OR DELETE ON ${t}\n  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version();`,
  );
  return [fn, ...triggers].join('\n--> statement-breakpoint\n');
}
