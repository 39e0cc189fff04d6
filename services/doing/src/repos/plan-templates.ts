import { randomUUID } from 'node:crypto';
import { and, asc, eq, isNull, or } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import { assignments, planItemTimes, planItems, planTemplates, plans, positions } from '../db/schema';
import type { TemplateData } from '../schemas';

/** A plan as a template keeps it: its notes, its service order (items with their parent links) and its positions. */
export async function captureFromPlan(db: DbOrTx, churchId: string, plan: { id: string; notes: string | null }): Promise<TemplateData> {
  const items = await db.select().from(planItems).where(and(eq(planItems.churchId, churchId), eq(planItems.planId, plan.id))).orderBy(asc(planItems.sort), asc(planItems.id));
  const places = await db.select().from(positions).where(and(eq(positions.churchId, churchId), eq(positions.planId, plan.id))).orderBy(asc(positions.categoryName), asc(positions.name), asc(positions.id));
  return {
    notes: plan.notes ?? '',
    items: items.map((i) => ({
      id: i.id,
      parentId: i.parentId,
      sort: i.sort,
      itemType: i.itemType,
      relatedId: i.relatedId,
      label: i.label,
      description: i.description,
      seconds: i.seconds,
      link: i.link,
      providerId: i.providerId,
      providerPath: i.providerPath,
      providerContentPath: i.providerContentPath,
      thumbnailUrl: i.thumbnailUrl,
    })),
    positions: places.map((p) => ({ categoryName: p.categoryName, name: p.name, count: p.count, groupId: p.groupId, allowSelfSignup: p.allowSelfSignup, description: p.description })),
  };
}

/**
 * The snapshot's items that reach a root through parents the snapshot holds (an item whose parent it lacks, or in a
 * loop, is left out, and so is everything under it), each with its key (`id`, or its place for an item without one).
 */
export function rootedItems(items: TemplateData['items']): Array<TemplateData['items'][number] & { key: string }> {
  const source = items.map((item, i) => ({ ...item, key: item.id ?? `#${i}` }));
  const byKey = new Map(source.map((item) => [item.key, item]));
  const rooted = (item: (typeof source)[number]) => {
    const seen = new Set<string>();
    for (let at: (typeof source)[number] | undefined = item; at; at = at.parentId ? byKey.get(at.parentId) : undefined) {
      if (!at.parentId) return true;
      if (seen.has(at.key)) return false;
      seen.add(at.key);
    }
    return false;
  };
  return source.filter(rooted);
}

/**
 * Applies a template to a plan, inside the caller's transaction. `serviceOrder` replaces the plan's items (and
 * their standings at its times) with the template's, new ids and parent links remapped; an item whose parent the
 * template does not hold is left out, as is everything under it. `positions` replaces the plan's positions and
 * their assignments. The plan's notes are taken only when it has none.
 */
export async function applyToPlan(tx: DbOrTx, churchId: string, planId: string, data: TemplateData, opts: { serviceOrder: boolean; positions: boolean }): Promise<void> {
  const ofPlan = <T extends typeof planItems | typeof planItemTimes | typeof positions | typeof assignments>(table: T) => and(eq(table.churchId, churchId), eq(table.planId, planId));
  if (opts.serviceOrder) {
    await tx.delete(planItemTimes).where(ofPlan(planItemTimes));
    await tx.delete(planItems).where(ofPlan(planItems));
    const ids = new Map<string, string>();
    // Only items that reach a root through parents the template holds (a loop or a missing parent is left out).
    const source = rootedItems(data.items);
    for (const item of source) ids.set(item.key, randomUUID());
    const rows = source.map((item) => ({
      id: ids.get(item.key)!,
      churchId,
      planId,
      parentId: item.parentId ? ids.get(item.parentId)! : null,
      sort: item.sort ?? 0,
      itemType: item.itemType ?? null,
      relatedId: item.relatedId ?? null,
      label: item.label ?? null,
      description: item.description ?? null,
      seconds: item.seconds ?? null,
      link: item.link ?? null,
      providerId: item.providerId ?? null,
      providerPath: item.providerPath ?? null,
      providerContentPath: item.providerContentPath ?? null,
      thumbnailUrl: item.thumbnailUrl ?? null,
    }));
    if (rows.length) await tx.insert(planItems).values(rows);
  }
  if (opts.positions) {
    await tx.delete(assignments).where(ofPlan(assignments));
    await tx.delete(positions).where(ofPlan(positions));
    if (data.positions.length) {
      await tx.insert(positions).values(
        data.positions.map((p) => ({
          id: randomUUID(),
          churchId,
          planId,
          categoryName: p.categoryName ?? null,
          name: p.name,
          count: p.count ?? 1,
          groupId: p.groupId ?? null,
          allowSelfSignup: p.allowSelfSignup ?? false,
          description: p.description ?? null,
        })),
      );
    }
  }
  if (data.notes) {
    await tx
      .update(plans)
      .set({ notes: data.notes, updatedAt: new Date() })
      .where(and(eq(plans.churchId, churchId), eq(plans.id, planId), or(isNull(plans.notes), eq(plans.notes, ''))));
  }
}

/** A ministry's templates by name. */
export const templatesOfMinistry = (db: DbOrTx, churchId: string, ministryId: string) =>
  db.select().from(planTemplates).where(and(eq(planTemplates.churchId, churchId), eq(planTemplates.ministryId, ministryId))).orderBy(asc(planTemplates.name), asc(planTemplates.id));
