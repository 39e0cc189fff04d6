import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { consentLogs, deliveryLogs, sentTexts, textingProviders } from '../db/schema';

export type ProviderRow = typeof textingProviders.$inferSelect;
export type SentTextRow = typeof sentTexts.$inferSelect;
type ProviderValues = Partial<Omit<typeof textingProviders.$inferInsert, 'id' | 'churchId'>>;

/** The church's providers, in the order they were saved (the first enabled one sends). */
export async function providersOf(db: DbOrTx, churchId: string): Promise<ProviderRow[]> {
  return db.select().from(textingProviders).where(eq(textingProviders.churchId, churchId)).orderBy(asc(textingProviders.id));
}

/** One provider of the church, or its first enabled one. */
export async function providerRow(db: DbOrTx, churchId: string, providerId?: string | null): Promise<ProviderRow | undefined> {
  const where = providerId
    ? and(eq(textingProviders.churchId, churchId), eq(textingProviders.id, providerId))
    : and(eq(textingProviders.churchId, churchId), eq(textingProviders.enabled, true));
  const [row] = await db.select().from(textingProviders).where(where).orderBy(asc(textingProviders.id)).limit(1);
  return row;
}

/** A provider by id whatever its church (a webhook names it in its path; the signature then proves the sender). */
export async function providerById(db: DbOrTx, id: string): Promise<ProviderRow | undefined> {
  const [row] = await db.select().from(textingProviders).where(eq(textingProviders.id, id));
  return row;
}

export async function insertProvider(db: DbOrTx, churchId: string, values: ProviderValues): Promise<ProviderRow> {
  const [row] = await db
    .insert(textingProviders)
    .values({ ...values, id: randomUUID(), churchId })
    .returning();
  return row!;
}

export async function updateProvider(db: DbOrTx, churchId: string, id: string, values: ProviderValues): Promise<ProviderRow | undefined> {
  const [row] = await db.update(textingProviders).set(values).where(and(eq(textingProviders.churchId, churchId), eq(textingProviders.id, id))).returning();
  return row;
}

export async function deleteProvider(db: DbOrTx, churchId: string, id: string): Promise<ProviderRow | undefined> {
  const [row] = await db.delete(textingProviders).where(and(eq(textingProviders.churchId, churchId), eq(textingProviders.id, id))).returning();
  return row;
}

export async function sentTextsOf(db: DbOrTx, churchId: string, limit = 500): Promise<SentTextRow[]> {
  return db.select().from(sentTexts).where(eq(sentTexts.churchId, churchId)).orderBy(desc(sentTexts.timeSent)).limit(limit);
}

export async function findSentText(db: DbOrTx, churchId: string, id: string): Promise<SentTextRow | undefined> {
  const [row] = await db.select().from(sentTexts).where(and(eq(sentTexts.churchId, churchId), eq(sentTexts.id, id)));
  return row;
}

export async function logsOfSentText(db: DbOrTx, churchId: string, sentTextId: string) {
  return db.select().from(deliveryLogs).where(and(eq(deliveryLogs.churchId, churchId), eq(deliveryLogs.sentTextId, sentTextId))).orderBy(asc(deliveryLogs.attemptedAt));
}

/** A sent text and one queued delivery log per recipient (unique per sent text and person: no one is texted twice); answers the logs' ids. */
export async function insertSentText(
  db: DbOrTx,
  text: Omit<typeof sentTexts.$inferInsert, 'id'> & { id: string },
  recipients: Array<{ personId: string | null; recipient: string; provider: string }>,
): Promise<string[]> {
  await db.insert(sentTexts).values(text);
  if (!recipients.length) return [];
  const rows = await db
    .insert(deliveryLogs)
    .values(
      recipients.map((r) => ({
        id: randomUUID(),
        churchId: text.churchId,
        personId: r.personId,
        channel: 'sms',
        recipient: r.recipient,
        provider: r.provider,
        status: 'queued',
        sentTextId: text.id,
        contentType: 'sentText',
        contentId: text.id,
      })),
    )
    .returning({ id: deliveryLogs.id });
  return rows.map((r) => r.id);
}

/** Claims a queued text's log for sending (a log already sent or being sent is left alone). */
export async function claimQueuedLog(db: DbOrTx, id: string) {
  const [row] = await db
    .update(deliveryLogs)
    .set({ status: 'sending', updatedAt: new Date() })
    .where(and(eq(deliveryLogs.id, id), eq(deliveryLogs.status, 'queued')))
    .returning();
  return row;
}

export async function sentTextById(db: DbOrTx, id: string): Promise<SentTextRow | undefined> {
  const [row] = await db.select().from(sentTexts).where(eq(sentTexts.id, id));
  return row;
}

/** The latest opt-out or opt-in keyword from one of these numbers since `since`, in the church. */
export async function latestConsent(db: DbOrTx, churchId: string, phones: string[], since: Date): Promise<string | undefined> {
  const [latest] = await db
    .select({ action: consentLogs.action })
    .from(consentLogs)
    .where(and(eq(consentLogs.churchId, churchId), gte(consentLogs.receivedAt, since), inArray(consentLogs.phone, phones), inArray(consentLogs.action, ['optOut', 'optIn'])))
    .orderBy(desc(consentLogs.receivedAt))
    .limit(1);
  return latest?.action;
}

type LogOutcome = { status: string; error?: string | null; provider?: string; providerMessageId?: string | null };
const setLog = (db: DbOrTx, id: string, outcome: LogOutcome) => db.update(deliveryLogs).set({ ...outcome, updatedAt: new Date() }).where(eq(deliveryLogs.id, id));

/** How a queued text's send ended, with its sent text's counts moved in the same transaction. */
export async function settleLog(db: DbOrTx, logId: string, sentTextId: string, outcome: LogOutcome & { counted: 'success' | 'fail' | 'optedOut' }): Promise<void> {
  const { counted, ...log } = outcome;
  await setLog(db, logId, log);
  const counts =
    counted === 'success'
      ? { successCount: sql`${sentTexts.successCount} + 1` }
      : counted === 'fail'
        ? { failCount: sql`${sentTexts.failCount} + 1` }
        : { recipientCount: sql`greatest(${sentTexts.recipientCount} - 1, 0)`, optedOutCount: sql`${sentTexts.optedOutCount} + 1` };
  await db.update(sentTexts).set(counts).where(eq(sentTexts.id, sentTextId));
}

/** A transient failure: the log waits for the job's next attempt. */
export async function requeueLog(db: DbOrTx, logId: string, error: string): Promise<void> {
  await setLog(db, logId, { status: 'queued', error });
}

/** The log of a provider's message (its status callbacks name it). */
export async function logOfProviderMessage(db: DbOrTx, churchId: string, providerMessageId: string) {
  const [row] = await db.select().from(deliveryLogs).where(and(eq(deliveryLogs.churchId, churchId), eq(deliveryLogs.providerMessageId, providerMessageId)));
  return row;
}

/** A status the provider reported later; a failure after `sent` moves one from the sent text's successes to its failures. */
export async function applyStatus(db: DbOrTx, log: { id: string; sentTextId: string | null; error: string | null }, status: string, error: string | null, failedAfterSuccess: boolean): Promise<void> {
  await setLog(db, log.id, { status, error: error ?? log.error });
  if (log.sentTextId && failedAfterSuccess) {
    await db
      .update(sentTexts)
      .set({ successCount: sql`greatest(${sentTexts.successCount} - 1, 0)`, failCount: sql`${sentTexts.failCount} + 1` })
      .where(eq(sentTexts.id, log.sentTextId));
  }
}

export async function insertConsentLog(db: DbOrTx, values: Omit<typeof consentLogs.$inferInsert, 'id'>): Promise<void> {
  await db.insert(consentLogs).values({ id: randomUUID(), ...values });
}
