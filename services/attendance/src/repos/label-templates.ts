import { and, eq, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { labelTemplates } from '../db/schema';

export type LabelTemplateRow = typeof labelTemplates.$inferSelect;

/**
 * Takes the default of a label type from every template of the church but `keepId`, under a transaction lock per
 * church and type, so two concurrent "set default" saves end with one default (the partial unique index keeps it
 * so). Answers the templates that were the default, as they were.
 */
export async function takeDefault(tx: DbOrTx, churchId: string, labelType: string, keepId?: string): Promise<LabelTemplateRow[]> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${churchId}:label-default:${labelType}`}, 0))`);
  const was = await tx
    .update(labelTemplates)
    .set({ isDefault: false })
    .where(and(eq(labelTemplates.churchId, churchId), eq(labelTemplates.labelType, labelType), eq(labelTemplates.isDefault, true), keepId ? ne(labelTemplates.id, keepId) : undefined))
    .returning();
  return was.map((row) => ({ ...row, isDefault: true }));
}
