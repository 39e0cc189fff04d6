import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { conflict, type DbOrTx } from '@church/common';
import { pledges } from '../db/schema';
import { amountOf, centsText } from '../lib/money';

type PledgeRow = typeof pledges.$inferSelect;

/** A pledge as the API answers it. */
export const pledgeItem = (row: PledgeRow) => ({ id: row.id, campaignId: row.campaignId, personId: row.personId, amount: amountOf(row.amount) });

/**
 * A person's pledge to a campaign, made or changed: one per person and campaign, so a second pledge of the same
 * person (two staff entering it, a member pledging again) changes the first (`on conflict`, also when two arrive
 * at once). Answers the row and the one it replaced, for the audit log.
 */
export async function upsertPledge(tx: DbOrTx, churchId: string, pledge: { campaignId: string; personId: string; cents: number }): Promise<{ before?: PledgeRow; after: PledgeRow }> {
  const [before] = await tx
    .select()
    .from(pledges)
    .where(and(eq(pledges.churchId, churchId), eq(pledges.campaignId, pledge.campaignId), eq(pledges.personId, pledge.personId)))
    .for('update');
  const [after] = await tx
    .insert(pledges)
    .values({ id: randomUUID(), churchId, campaignId: pledge.campaignId, personId: pledge.personId, amount: centsText(pledge.cents) })
    .onConflictDoUpdate({ target: [pledges.churchId, pledges.campaignId, pledges.personId], set: { amount: sql`excluded.amount`, updatedAt: new Date() } })
    .returning();
  return { before, after: after! };
}

/**
 * Changes a pledge by id (its campaign, person or amount); undefined when the church has none with that id. A
 * change that would give the person a second pledge to the campaign is a 409.
 */
export async function updatePledge(tx: DbOrTx, churchId: string, id: string, values: { campaignId?: string; personId?: string; cents?: number }): Promise<{ before: PledgeRow; after: PledgeRow } | undefined> {
  const [before] = await tx.select().from(pledges).where(and(eq(pledges.churchId, churchId), eq(pledges.id, id))).for('update');
  if (!before) return undefined;
  const campaignId = values.campaignId ?? before.campaignId;
  const personId = values.personId ?? before.personId;
  if (campaignId !== before.campaignId || personId !== before.personId) {
    const [taken] = await tx
      .select({ id: pledges.id })
      .from(pledges)
      .where(and(eq(pledges.churchId, churchId), eq(pledges.campaignId, campaignId), eq(pledges.personId, personId)))
      .for('update');
    if (taken) throw conflict('This person already has a pledge to this campaign');
  }
  const [after] = await tx
    .update(pledges)
    .set({ campaignId, personId, ...(values.cents === undefined ? {} : { amount: centsText(values.cents) }), updatedAt: new Date() })
    .where(and(eq(pledges.churchId, churchId), eq(pledges.id, id)))
    .returning();
  return { before, after: after! };
}
