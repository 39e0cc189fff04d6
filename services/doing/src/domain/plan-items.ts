import type { z } from 'zod';
import { badRequest, type Actor, type Tx } from '@church/common';
import type { DoingDeps } from '../deps';
import { planItems } from '../db/schema';
import { deleteItem, savePlanItems, sortItem } from '../repos/plan-items';
import { ministryScope, outsideMinistry, refuseOutside } from '../repos/refs';
import type { PlanItemSave, SortBody } from '../schemas';
import { change, changesOf, report } from './changes';
import type { Param } from './plans';

// A plan's service order, changed by holders of Plans.Edit and the plan's ministry's team: `ministries` are the
// ministries the caller may edit (`undefined` for every one); an item outside them is refused (401).

type Deps = Pick<DoingDeps, 'db' | 'queue' | 'module'>;
type Ministries = Set<string> | undefined;

/** Saves items of the caller's plans (each of them before and after the save), reported in the transaction. */
async function saveIn(deps: Deps, tx: Tx, actor: Actor, ministries: Ministries, items: Array<z.output<typeof PlanItemSave>>, param: Param) {
  const churchId = actor.churchId;
  const scope = ministryScope(ministries, planItems.planId, 'plan', churchId);
  await refuseOutside(tx, planItems, churchId, items.flatMap((i) => (i.id ? [i.id.toLowerCase()] : [])), scope, outsideMinistry);
  const { written, stored } = await savePlanItems(tx, churchId, items, param);
  await refuseOutside(tx, planItems, churchId, written.map((r) => r.id), scope, outsideMinistry);
  await report(deps, actor, changesOf('planItem', written, stored), tx);
  return written;
}

/** A batch of items saved in one transaction. */
export function savePlanItemsOf(deps: Deps, actor: Actor, ministries: Ministries, items: Array<z.output<typeof PlanItemSave>>, param: Param) {
  return deps.queue.transaction(deps.db, (tx) => saveIn(deps, tx, actor, ministries, items, param));
}

/**
 * An existing item moves (only its place and parent change, whatever else the app posts along); a new one is saved
 * first, as a save would, then placed.
 */
export function placePlanItem(deps: Deps, actor: Actor, ministries: Ministries, body: z.output<typeof SortBody>, param: Param) {
  return deps.queue.transaction(deps.db, async (tx) => {
    const { sort, parentId } = body;
    let id = body.id;
    if (!id) {
      if (!body.planId) throw badRequest('planId', 'planId is required for a new item');
      const [created] = await saveIn(deps, tx, actor, ministries, [{ ...body, planId: body.planId }], param);
      id = created!.id;
    } else {
      await refuseOutside(tx, planItems, actor.churchId, [id.toLowerCase()], ministryScope(ministries, planItems.planId, 'plan', actor.churchId), outsideMinistry);
    }
    const { before, after } = await sortItem(tx, actor.churchId, id, sort, parentId);
    await report(deps, actor, [change('planItem', before, after)], tx);
    return after;
  });
}

/** An item of the caller's plans goes, with the items under it. */
export async function deletePlanItem(deps: Deps, actor: Actor, ministries: Ministries, id: string): Promise<void> {
  await deps.queue.transaction(deps.db, async (tx) => {
    await refuseOutside(tx, planItems, actor.churchId, [id.toLowerCase()], ministryScope(ministries, planItems.planId, 'plan', actor.churchId), outsideMinistry);
    const gone = await deleteItem(tx, actor.churchId, id);
    await report(deps, actor, gone.map((row) => change('planItem', row, undefined)), tx);
  });
}
