import type { z } from 'zod';
import { REMOTE, assertReferences, badRequest, deleteRow, getRow, notFound, rowsByIds, saveRows, type Actor } from '@church/common';
import type { DoingDeps } from '../deps';
import { planTemplates } from '../db/schema';
import { applyToPlan, captureFromPlan, rootedItems } from '../repos/plan-templates';
import { TemplateData, type FromPlanBody, type PlanTemplateSave } from '../schemas';
import { change, changesOf, report } from './changes';
import type { MinistryAccess, Param } from './plans';

// A ministry's reusable plans (B1Admin's PlanTemplateManager, SaveTemplateDialog, PlanEdit): as in the open-source
// system, for holders of Plans.Edit and the ministry's own team (`MinistryAccess`).

type Deps = Pick<DoingDeps, 'db' | 'internal' | 'queue' | 'module'>;
type TemplateRow = typeof planTemplates.$inferSelect;

const templateOf = (deps: Deps, churchId: string, id: string) => getRow(deps.db, planTemplates, churchId, id, 'Plan template');

/** A snapshot sent in a body: its positions' teams are the church's groups. */
async function checkSnapshot(deps: Deps, churchId: string, data: TemplateData, param: string) {
  await assertReferences(deps, churchId, data.positions as Array<Record<string, unknown>>, { groupId: REMOTE.groups }, (j, field) => `${param}.positions[${j}].${field}`);
}

/**
 * Renames and moves (the snapshot itself comes from a plan: `templateFromPlan`); both the old and the new ministry
 * must be the caller's, and the ministry one of the church's groups (membership's), as are the teams of the
 * snapshot's positions. Items whose parent the snapshot lacks are left out as it is kept (applying it would leave
 * them out anyway), so no dangling parent id (another plan's, another church's) is kept.
 */
export async function saveTemplates(deps: Deps, actor: Actor, access: MinistryAccess, input: Array<z.output<typeof PlanTemplateSave>>, param: Param): Promise<TemplateRow[]> {
  const churchId = actor.churchId;
  const ids = input.flatMap((t) => (t.id ? [t.id.toLowerCase()] : []));
  const stored = new Map((await rowsByIds(deps.db, planTemplates, churchId, ids)).map((r) => [r.id, r]));
  for (const item of input) {
    const before = item.id ? stored.get(item.id.toLowerCase()) : undefined;
    if (item.id && !before) throw notFound('Plan template');
    if (before) await access.ministry(before.ministryId);
    await access.ministry(item.ministryId === undefined ? before?.ministryId : item.ministryId);
  }
  await assertReferences(deps, churchId, input, { ministryId: REMOTE.groups }, param);
  for (const [i, item] of input.entries()) if (item.data) await checkSnapshot(deps, churchId, item.data, param(i, 'data'));
  const items = input.map((item) => (item.data ? { ...item, data: { ...item.data, items: rootedItems(item.data.items).map(({ key: _key, ...rest }) => rest) } } : item));
  return deps.queue.transaction(deps.db, async (tx) => {
    const written = await saveRows(tx, planTemplates, churchId, items, 'Plan template');
    await report(deps, actor, changesOf('planTemplate', written, [...stored.values()]), tx);
    return written;
  });
}

/**
 * A plan's service order, positions and notes as a template: a new one (`name` needed), or the snapshot of an
 * existing one (`id`) taken again, its name and ministry kept unless sent.
 */
export async function templateFromPlan(deps: Deps, actor: Actor, access: MinistryAccess, planId: string, body: z.output<typeof FromPlanBody>, param: Param): Promise<TemplateRow> {
  const churchId = actor.churchId;
  const plan = await access.plan(deps.db, planId);
  const before = body.id ? await templateOf(deps, churchId, body.id) : undefined;
  if (before) await access.ministry(before.ministryId);
  const name = body.name ?? before?.name;
  if (!name) throw badRequest('name', 'name is required');
  const ministryId = body.ministryId ?? before?.ministryId ?? plan.ministryId;
  if (ministryId !== plan.ministryId) await access.ministry(ministryId);
  // the ministry is one of the church's groups (membership's)
  await assertReferences(deps, churchId, [body], { ministryId: REMOTE.groups }, param);
  const data = await captureFromPlan(deps.db, churchId, plan);
  return deps.queue.transaction(deps.db, async (tx) => {
    const [saved] = await saveRows(tx, planTemplates, churchId, [{ id: before?.id, name, ministryId, data }], 'Plan template');
    await report(deps, actor, [change('planTemplate', before, saved!)], tx);
    return saved!;
  });
}

/** Plans get the template's service order (by default) and, when asked, its positions; all of them or none. */
export async function applyTemplate(deps: Deps, actor: Actor, access: MinistryAccess, id: string, body: { planIds: string[]; serviceOrder: boolean; positions: boolean }): Promise<{ applied: number }> {
  const churchId = actor.churchId;
  const found = await templateOf(deps, churchId, id);
  const planIds = [...new Set(body.planIds.map((planId) => planId.toLowerCase()))];
  for (const planId of planIds) await access.plan(deps.db, planId);
  const parsed = TemplateData.safeParse(found.data ?? {});
  if (!parsed.success) throw badRequest('id', 'the template holds no plan snapshot; save it from a plan again', 'params');
  await deps.queue.transaction(deps.db, async (tx) => {
    for (const planId of planIds) await applyToPlan(tx, churchId, planId, parsed.data, { serviceOrder: body.serviceOrder, positions: body.positions });
    await report(deps, actor, [{ churchId, entityType: 'planTemplate', entityId: found.id, action: 'applied', after: { planIds } }], tx);
  });
  return { applied: planIds.length };
}

/** A template goes, once the caller may edit its ministry. */
export async function deleteTemplate(deps: Deps, actor: Actor, access: MinistryAccess, id: string): Promise<void> {
  const found = await templateOf(deps, actor.churchId, id);
  await access.ministry(found.ministryId);
  await deps.queue.transaction(deps.db, async (tx) => {
    const gone = await deleteRow(tx, planTemplates, actor.churchId, found.id, 'Plan template');
    await report(deps, actor, [change('planTemplate', gone, undefined)], tx);
  });
}
