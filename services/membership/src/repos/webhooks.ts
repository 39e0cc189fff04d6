import { and, arrayOverlaps, desc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { webhookAttempts, webhookDeliveries, webhooks } from '../db/schema';

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export function listWebhooks(db: DbOrTx, churchId: string): Promise<WebhookRow[]> {
  return db.select().from(webhooks).where(eq(webhooks.churchId, churchId)).orderBy(webhooks.name, webhooks.id);
}

export async function findWebhook(db: DbOrTx, churchId: string, id: string): Promise<WebhookRow | undefined> {
  const [row] = await db.select().from(webhooks).where(and(eq(webhooks.churchId, churchId), eq(webhooks.id, id))).limit(1);
  return row;
}

export async function insertWebhook(db: DbOrTx, row: typeof webhooks.$inferInsert): Promise<WebhookRow> {
  const [saved] = await db.insert(webhooks).values(row).returning();
  return saved!;
}

export async function updateWebhook(db: DbOrTx, churchId: string, id: string, values: Partial<typeof webhooks.$inferInsert>): Promise<WebhookRow | undefined> {
  const [saved] = await db
    .update(webhooks)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(webhooks.churchId, churchId), eq(webhooks.id, id)))
    .returning();
  return saved;
}

/** Deletes a webhook with its deliveries and their attempts; the row as it was, or undefined. */
export async function deleteWebhook(db: DbOrTx, churchId: string, id: string): Promise<WebhookRow | undefined> {
  const [gone] = await db.delete(webhooks).where(and(eq(webhooks.churchId, churchId), eq(webhooks.id, id))).returning();
  if (!gone) return undefined;
  const deliveries = db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(and(eq(webhookDeliveries.churchId, churchId), eq(webhookDeliveries.webhookId, id)));
  await db.delete(webhookAttempts).where(and(eq(webhookAttempts.churchId, churchId), inArray(webhookAttempts.deliveryId, deliveries)));
  await db.delete(webhookDeliveries).where(and(eq(webhookDeliveries.churchId, churchId), eq(webhookDeliveries.webhookId, id)));
  return gone;
}

/** The events the church's active webhooks subscribe to, each once. */
export async function subscribedEvents(db: DbOrTx, churchId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ event: sql<string>`unnest(${webhooks.events})` })
    .from(webhooks)
    .where(and(eq(webhooks.churchId, churchId), eq(webhooks.active, true)));
  return rows.map((r) => r.event);
}

/** The active webhooks of these churches subscribed to any of these events (the changes job's fan-out). */
export function subscribers(db: DbOrTx, churchIds: string[], events: string[]): Promise<WebhookRow[]> {
  if (!churchIds.length || !events.length) return Promise.resolve([]);
  return db
    .select()
    .from(webhooks)
    .where(and(inArray(webhooks.churchId, churchIds), eq(webhooks.active, true), arrayOverlaps(webhooks.events, events)));
}

/** New deliveries; ids already present (a retried changes job) are skipped. */
export async function insertDeliveries(db: DbOrTx, rows: Array<typeof webhookDeliveries.$inferInsert>): Promise<string[]> {
  if (!rows.length) return [];
  const saved = await db.insert(webhookDeliveries).values(rows).onConflictDoNothing().returning({ id: webhookDeliveries.id });
  return saved.map((r) => r.id);
}

export async function findDelivery(db: DbOrTx, churchId: string, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.churchId, churchId), eq(webhookDeliveries.id, id))).limit(1);
  return row;
}

/** The webhook's latest deliveries, newest first. */
export function deliveriesOf(db: DbOrTx, churchId: string, webhookId: string, limit = 50): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.churchId, churchId), eq(webhookDeliveries.webhookId, webhookId)))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
}

export function attemptsOf(db: DbOrTx, churchId: string, deliveryIds: string[]) {
  if (!deliveryIds.length) return Promise.resolve([]);
  return db
    .select()
    .from(webhookAttempts)
    .where(and(eq(webhookAttempts.churchId, churchId), inArray(webhookAttempts.deliveryId, deliveryIds)))
    .orderBy(webhookAttempts.deliveryId, webhookAttempts.attempt);
}

/** Records one attempt and where the delivery stands after it, in one transaction. */
export async function recordAttempt(
  db: DbOrTx,
  delivery: DeliveryRow,
  attempt: { number: number; status: number | null; body: string | null; error: string | null; durationMs: number; attemptId: string },
  outcome: { status: DeliveryRow['status']; nextAttemptAt: Date | null; completed: boolean },
): Promise<void> {
  await db.insert(webhookAttempts).values({
    id: attempt.attemptId,
    churchId: delivery.churchId,
    deliveryId: delivery.id,
    attempt: attempt.number,
    responseStatus: attempt.status,
    responseBody: attempt.body,
    error: attempt.error,
    durationMs: attempt.durationMs,
  });
  await db
    .update(webhookDeliveries)
    .set({
      status: outcome.status,
      attemptCount: sql`${webhookDeliveries.attemptCount} + 1`,
      responseStatus: attempt.status,
      responseBody: attempt.body ?? attempt.error,
      nextAttemptAt: outcome.nextAttemptAt,
      completedAt: outcome.completed ? new Date() : null,
    })
    .where(and(eq(webhookDeliveries.churchId, delivery.churchId), eq(webhookDeliveries.id, delivery.id)));
}

/** A receiver answered 2xx (failures start again from 0) or a delivery gave up (one more in a row). */
export async function countFailure(db: DbOrTx, churchId: string, webhookId: string, failed: boolean): Promise<void> {
  await db
    .update(webhooks)
    .set({ consecutiveFailures: failed ? sql`${webhooks.consecutiveFailures} + 1` : 0 })
    .where(and(eq(webhooks.churchId, churchId), eq(webhooks.id, webhookId)));
}
