import { randomUUID } from 'node:crypto';
import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { reminderDefinitions, reminderOccurrences } from '../db/schema';

export type DefinitionRow = typeof reminderDefinitions.$inferSelect;
export type OccurrenceRow = typeof reminderOccurrences.$inferSelect;
export type DefinitionValues = Pick<DefinitionRow, 'offsets' | 'sendLocalTime' | 'timeZone' | 'message' | 'channels' | 'recipientMode' | 'enabled'>;

/** Where a definition applies: one entity, or every entity of a scope (a plan type's plans). */
export type Target = { entityType: string; entityId: string; scopeId?: undefined } | { entityType: string; scopeId: string; entityId?: undefined };

const targetIs = (t: Target) =>
  and(
    eq(reminderDefinitions.entityType, t.entityType),
    t.entityId ? eq(reminderDefinitions.entityId, t.entityId) : eq(reminderDefinitions.scopeId, t.scopeId!),
    t.entityId ? isNull(reminderDefinitions.scopeId) : isNull(reminderDefinitions.entityId),
  );

/** The definitions of one entity or scope (at most one: the apps read the first). */
export async function definitionsOf(db: DbOrTx, churchId: string, target: Target): Promise<DefinitionRow[]> {
  return db.select().from(reminderDefinitions).where(and(eq(reminderDefinitions.churchId, churchId), targetIs(target)));
}

export async function definitionById(db: DbOrTx, churchId: string, id: string): Promise<DefinitionRow | undefined> {
  const [row] = await db.select().from(reminderDefinitions).where(and(eq(reminderDefinitions.churchId, churchId), eq(reminderDefinitions.id, id)));
  return row;
}

/**
 * Saves the one definition of an entity or scope: updated when it exists, inserted otherwise (two saves at once
 * meet at the unique index: the second updates the first's row). Answers the row and the one it replaced.
 */
export async function upsertDefinition(db: DbOrTx, churchId: string, target: Target, values: DefinitionValues): Promise<{ row: DefinitionRow; before?: DefinitionRow }> {
  const [before] = await db.select().from(reminderDefinitions).where(and(eq(reminderDefinitions.churchId, churchId), targetIs(target))).for('update');
  const now = new Date();
  if (before) {
    const [row] = await db.update(reminderDefinitions).set({ ...values, dateModified: now }).where(eq(reminderDefinitions.id, before.id)).returning();
    return { row: row!, before };
  }
  const key = target.entityId ? [reminderDefinitions.churchId, reminderDefinitions.entityType, reminderDefinitions.entityId] : [reminderDefinitions.churchId, reminderDefinitions.entityType, reminderDefinitions.scopeId];
  const [row] = await db
    .insert(reminderDefinitions)
    .values({ id: randomUUID(), churchId, entityType: target.entityType, entityId: target.entityId ?? null, scopeId: target.scopeId ?? null, ...values })
    .onConflictDoUpdate({ target: key, targetWhere: sql`${target.entityId ? reminderDefinitions.entityId : reminderDefinitions.scopeId} is not null`, set: { ...values, dateModified: now } })
    .returning();
  return { row: row! };
}

/** Deletes a definition with its occurrences (their rows cascade); answers the deleted row. */
export async function deleteDefinition(db: DbOrTx, churchId: string, id: string): Promise<DefinitionRow | undefined> {
  const [row] = await db.delete(reminderDefinitions).where(and(eq(reminderDefinitions.churchId, churchId), eq(reminderDefinitions.id, id))).returning();
  return row;
}

/** Enabled definitions of every church after `afterId` (the hourly refresh walks them in pages). */
export async function enabledDefinitions(db: DbOrTx, afterId: string | null, limit: number): Promise<Array<{ id: string; churchId: string }>> {
  return db
    .select({ id: reminderDefinitions.id, churchId: reminderDefinitions.churchId })
    .from(reminderDefinitions)
    .where(and(eq(reminderDefinitions.enabled, true), afterId ? gt(reminderDefinitions.id, afterId) : undefined))
    .orderBy(asc(reminderDefinitions.id))
    .limit(limit);
}

/** A reminder to send, planned by the expansion. */
export interface PlannedOccurrence {
  entityId: string;
  occurrence: string;
  offsetMinutes: number;
  fireAt: Date;
  expiresAt: Date;
}

const keyOf = (o: { entityId: string; occurrence: string; offsetMinutes: number }) => `${o.entityId}|${o.occurrence}|${o.offsetMinutes}`;

/**
 * Makes a definition's pending reminders the planned ones: those no longer planned go (the occurrence moved, an
 * offset was dropped), planned ones are added or moved to their new time; reminders already sent, queued or
 * missed keep their row, so the same one is never sent twice.
 */
export async function replacePending(tx: DbOrTx, def: Pick<DefinitionRow, 'id' | 'churchId' | 'entityType'>, planned: PlannedOccurrence[]): Promise<void> {
  const pending = await tx
    .select({ id: reminderOccurrences.id, entityId: reminderOccurrences.entityId, occurrence: reminderOccurrences.occurrence, offsetMinutes: reminderOccurrences.offsetMinutes })
    .from(reminderOccurrences)
    .where(and(eq(reminderOccurrences.churchId, def.churchId), eq(reminderOccurrences.definitionId, def.id), eq(reminderOccurrences.status, 'pending')));
  const keep = new Set(planned.map(keyOf));
  const gone = pending.filter((p) => !keep.has(keyOf(p))).map((p) => p.id);
  if (gone.length) await tx.delete(reminderOccurrences).where(inArray(reminderOccurrences.id, gone));
  if (!planned.length) return;
  await tx
    .insert(reminderOccurrences)
    .values(planned.map((p) => ({ id: randomUUID(), churchId: def.churchId, definitionId: def.id, entityType: def.entityType, ...p })))
    .onConflictDoUpdate({
      target: [reminderOccurrences.churchId, reminderOccurrences.definitionId, reminderOccurrences.entityId, reminderOccurrences.occurrence, reminderOccurrences.offsetMinutes],
      set: { fireAt: sql`excluded.fire_at`, expiresAt: sql`excluded.expires_at` },
      setWhere: sql`${reminderOccurrences.status} = 'pending'`,
    });
}

/**
 * Claims what is due at `now` across churches, oldest first: `queued` (its send job is enqueued in the same
 * transaction), or `missed` when it is claimed only after it would be of use. Rows another replica is claiming
 * are skipped, never taken twice.
 */
export async function claimDue(tx: DbOrTx, now: Date, limit: number): Promise<Array<Pick<OccurrenceRow, 'id' | 'churchId' | 'status'>>> {
  const result = (await tx.execute(sql`
    update reminder_occurrences set status = case when expires_at <= ${now.toISOString()}::timestamptz then 'missed' else 'queued' end
    where id in (select id from reminder_occurrences where status = 'pending' and fire_at <= ${now.toISOString()}::timestamptz
      order by fire_at limit ${limit} for update skip locked)
    returning id, church_id, status`)) as unknown as { rows: Array<{ id: string; church_id: string; status: string }> };
  return result.rows.map((r) => ({ id: r.id, churchId: r.church_id, status: r.status }));
}

export async function occurrenceById(db: DbOrTx, churchId: string, id: string): Promise<OccurrenceRow | undefined> {
  const [row] = await db.select().from(reminderOccurrences).where(and(eq(reminderOccurrences.churchId, churchId), eq(reminderOccurrences.id, id)));
  return row;
}

/** Moves a queued reminder on (`sent` with its recipients, or `cancelled`); false when it was no longer queued. */
export async function finishOccurrence(db: DbOrTx, id: string, status: 'sent' | 'cancelled', recipientCount?: number): Promise<boolean> {
  const rows = await db
    .update(reminderOccurrences)
    .set({ status, ...(status === 'sent' ? { sentAt: new Date(), recipientCount: recipientCount ?? 0 } : {}) })
    .where(and(eq(reminderOccurrences.id, id), eq(reminderOccurrences.status, 'queued')))
    .returning({ id: reminderOccurrences.id });
  return rows.length > 0;
}

/** A definition's reminders from `from` on, by time (tests and the staff's view of what will go out). */
export async function occurrencesOf(db: DbOrTx, churchId: string, definitionId: string): Promise<OccurrenceRow[]> {
  return db
    .select()
    .from(reminderOccurrences)
    .where(and(eq(reminderOccurrences.churchId, churchId), eq(reminderOccurrences.definitionId, definitionId)))
    .orderBy(asc(reminderOccurrences.fireAt));
}
