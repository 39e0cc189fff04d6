import { and, asc, eq, getTableColumns, inArray, isNull, max, sql } from 'drizzle-orm';
import { badRequest, getRow, preparedReader, rowsByIds, saveRows, type DbOrTx, type RowInput, type Tx } from '@church/common';
import { planItemTimes, planItems, plans } from '../db/schema';
import { buildTree } from '../lib/tree';

export type PlanItemRow = typeof planItems.$inferSelect;

// The presenter's and the editor's read, built once: what an item answers, without the timestamps.
const { createdAt: _c, updatedAt: _u, ...itemColumns } = getTableColumns(planItems);
const readPlanItems = preparedReader(itemColumns, (qb) =>
  qb.select(itemColumns).from(planItems).where(and(eq(planItems.churchId, sql.placeholder('churchId')), eq(planItems.planId, sql.placeholder('planId')))),
);

/** A plan's items as a tree. */
export async function itemTree(db: DbOrTx, churchId: string, planId: string) {
  return buildTree(await readPlanItems(db, { churchId, planId }));
}

const siblingsOf = (churchId: string, planId: string, parentId: string | null) =>
  and(eq(planItems.churchId, churchId), eq(planItems.planId, planId), parentId ? eq(planItems.parentId, parentId) : isNull(planItems.parentId));

/** The sort value after the last sibling (new items without a sort go last). */
export async function nextSort(db: DbOrTx, churchId: string, planId: string, parentId: string | null): Promise<number> {
  const [row] = await db.select({ last: max(planItems.sort) }).from(planItems).where(siblingsOf(churchId, planId, parentId));
  return Math.floor(Number(row?.last ?? 0)) + 1;
}

/** Each item's parent in a plan (item id → parent id), for `refuseLoop`. */
export async function parentsIn(db: DbOrTx, churchId: string, planId: string): Promise<Map<string, string | null>> {
  const rows = await db.select({ id: planItems.id, parentId: planItems.parentId }).from(planItems).where(and(eq(planItems.churchId, churchId), eq(planItems.planId, planId)));
  return new Map(rows.map((r) => [r.id, r.parentId]));
}

/**
 * Refuses a parent that is the item itself or one of its descendants (by `parentOf`, see `parentsIn`): such a move
 * would close a loop, and the items of a loop have no way up to a root, so they would vanish from the tree. 400
 * naming `param`.
 */
export function refuseLoop(parentOf: ReadonlyMap<string, string | null>, itemId: string, parentId: string, param: string): void {
  if (parentId === itemId) throw badRequest(param, 'cannot be the item itself');
  const seen = new Set<string>();
  for (let at: string | null | undefined = parentId; at && !seen.has(at); at = parentOf.get(at)) {
    if (at === itemId) throw badRequest(param, "cannot be one of the item's own descendants");
    seen.add(at);
  }
}

/**
 * Moves an item (optionally under another parent of the same plan) to `sort`, then renumbers its siblings
 * 1..n in order: a client drops an item at 2.5 to put it between the second and third.
 */
export async function sortItem(tx: Tx, churchId: string, id: string, sort: number, parentId: string | null | undefined) {
  const item = await getRow(tx, planItems, churchId, id, 'Plan item');
  const parent = parentId === undefined ? item.parentId : parentId;
  if (parent) {
    const [p] = await rowsByIds(tx, planItems, churchId, [parent]);
    if (!p) throw badRequest('parentId', 'parentId is not a record of this church');
    if (p.planId !== item.planId) throw badRequest('parentId', 'belongs to another plan');
    refuseLoop(await parentsIn(tx, churchId, item.planId), item.id, p.id, 'parentId');
  }
  await tx.update(planItems).set({ sort, parentId: parent, updatedAt: new Date() }).where(eq(planItems.id, item.id));
  const siblings = await tx.select({ id: planItems.id }).from(planItems).where(siblingsOf(churchId, item.planId, parent)).orderBy(asc(planItems.sort), sql`${planItems.id} = ${item.id} desc`, asc(planItems.id));
  for (const [i, s] of siblings.entries()) await tx.update(planItems).set({ sort: i + 1 }).where(eq(planItems.id, s.id));
  return { before: item, after: await getRow(tx, planItems, churchId, id) };
}

/** Deletes an item and everything under it, with their standings at the plan's times, in the caller's transaction; 404 when the church has no such item. Answers the items removed. */
export async function deleteItem(tx: Tx, churchId: string, id: string) {
  const item = await getRow(tx, planItems, churchId, id, 'Plan item');
  const all = await tx.select({ id: planItems.id, parentId: planItems.parentId }).from(planItems).where(and(eq(planItems.churchId, churchId), eq(planItems.planId, item.planId)));
  const doomed = new Set([item.id]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of all) {
      if (row.parentId && doomed.has(row.parentId) && !doomed.has(row.id)) {
        doomed.add(row.id);
        grew = true;
      }
    }
  }
  const gone = await tx.delete(planItems).where(and(eq(planItems.churchId, churchId), inArray(planItems.id, [...doomed]))).returning();
  await tx.delete(planItemTimes).where(and(eq(planItemTimes.churchId, churchId), inArray(planItemTimes.planItemId, [...doomed])));
  return gone;
}

type PlanItemInput = RowInput<typeof planItems> & { planId: string; parentId?: string | null; id?: string };

/**
 * Saves items after checking their plan and parents (never a loop), in the caller's transaction: a parent that is
 * the item itself or one of its descendants is a 400 naming `parentId` (counting parents moved earlier in the
 * batch); a new item without `sort` goes last among its siblings. Answers the rows written and those stored before.
 */
export async function savePlanItems(tx: Tx, churchId: string, items: PlanItemInput[], param: (i: number, field: string) => string) {
  const known = new Set((await rowsByIds(tx, plans, churchId, [...new Set(items.map((i) => i.planId.toLowerCase()))])).map((p) => p.id));
  const parentsById = new Map((await rowsByIds(tx, planItems, churchId, [...new Set(items.flatMap((i) => (i.parentId ? [i.parentId.toLowerCase()] : [])))])).map((p) => [p.id, p]));
  const stored = await rowsByIds(tx, planItems, churchId, items.flatMap((i) => (i.id ? [i.id.toLowerCase()] : [])));
  // Each plan's parents as this batch leaves them, read once: two items naming each other close a loop as surely as one.
  const parents = new Map<string, Map<string, string | null>>();
  const parentsOf = async (planId: string) => parents.get(planId) ?? parents.set(planId, await parentsIn(tx, churchId, planId)).get(planId)!;
  const rows = [];
  for (const [i, item] of items.entries()) {
    const planId = item.planId.toLowerCase();
    if (!known.has(planId)) throw badRequest(param(i, 'planId'), 'planId is not a record of this church');
    if (item.parentId) {
      const parent = parentsById.get(item.parentId.toLowerCase());
      if (!parent) throw badRequest(param(i, 'parentId'), 'parentId is not a record of this church');
      if (parent.planId !== planId) throw badRequest(param(i, 'parentId'), 'belongs to another plan');
    }
    if (item.id && item.parentId !== undefined) {
      const parentOf = await parentsOf(planId);
      const id = item.id.toLowerCase();
      const parentId = item.parentId?.toLowerCase() ?? null;
      if (parentId) refuseLoop(parentOf, id, parentId, param(i, 'parentId'));
      parentOf.set(id, parentId);
    }
    rows.push(item.sort === undefined && !item.id ? { ...item, sort: await nextSort(tx, churchId, planId, item.parentId ?? null) } : item);
  }
  return { written: await saveRows(tx, planItems, churchId, rows, 'Plan item'), stored };
}
