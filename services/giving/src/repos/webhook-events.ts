import { and, eq, getTableColumns, inArray, isNotNull, sql } from 'drizzle-orm';
import { preparedReader, type DbOrTx, type WebhookEventRow } from '@church/common';
import { webhookEvents } from '../db/schema';

/** Of these provider event ids, those the church has recorded and applied. */
export async function processedEventIds(db: DbOrTx, churchId: string, provider: string, eventIds: string[]): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < eventIds.length; i += 1000) {
    const rows = await db
      .select({ eventId: webhookEvents.eventId })
      .from(webhookEvents)
      .where(and(eq(webhookEvents.churchId, churchId), eq(webhookEvents.provider, provider), inArray(webhookEvents.eventId, eventIds.slice(i, i + 1000)), isNotNull(webhookEvents.processedAt)));
    for (const r of rows) seen.add(r.eventId);
  }
  return seen;
}

const eventColumns = getTableColumns(webhookEvents);
// Read once per webhook job: rendered once.
const readEvent = preparedReader(eventColumns, (qb) => qb.select(eventColumns).from(webhookEvents).where(eq(webhookEvents.id, sql`${sql.placeholder('id')}::uuid`)));

/** A recorded webhook event by its row id. */
export async function webhookEventById(db: DbOrTx, id: string): Promise<WebhookEventRow | undefined> {
  const [row] = await readEvent(db, { id });
  return row as WebhookEventRow | undefined;
}
