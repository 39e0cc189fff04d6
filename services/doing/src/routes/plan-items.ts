import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, IdParams, badRequest, batchOf, getRow, itemParam, rowsByIds, saveRows, type Tx, type ZodTypeProvider } from '@church/common';
import { planItems, plans } from '../db/schema';
import { requireRef } from '../repos/refs';
import { deleteItem, itemTree, nextSort, parentsIn, refuseLoop, sortItem } from '../repos/plan-items';
import { feedItems } from '../domain/plan-feed';
import { doing } from '../app';
import { IdsQuery, PlanItem, PlanItemSave, PlanItemTree, SortBody } from '../schemas';

const base = '/doing/planItems';
const Tree = z.array(PlanItemTree);
const ChurchPlan = z.object({ churchId: Id, planId: Id });
const Feed = z.object({
  planId: z.string(),
  name: z.string().nullable(),
  serviceDate: z.string().nullable(),
  contentId: z.string().nullable(),
  /** `plan`: the plan's own items; `lessonFeed`: filled from the external lesson feed; `none` */
  source: z.enum(['plan', 'lessonFeed', 'none']),
  items: Tree,
});

/** `/doing/planItems` (the service order as a tree) and `/doing/planFeed` (what the presenter shows). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };

  app.get(`${base}/ids`, { ...read, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: z.array(PlanItem) } } }, async (req) => (await rowsByIds(app.db, planItems, req.auth.churchId, req.query.ids)) as never);
  // The service order is read far more often than it changes (every screen of a service, every presenter):
  // each answer is kept per church, plan and data version (writes to plan_items raise the version) and sent
  // again, compressed once, for one primary-key lookup; a client that holds it gets 304.
  const sendTree = (req: FastifyRequest, reply: FastifyReply, churchId: string, planId: string) =>
    app.deps.snapshots.send(req, reply, churchId, planId, () => itemTree(app.db, churchId, planId));
  app.get(`${base}/plan/:planId`, { ...read, schema: { params: z.object({ planId: Id }), response: { 200: Tree } } }, (req, reply) => sendTree(req, reply, req.auth.churchId, req.params.planId));
  app.get(`${base}/presenter/:churchId/:planId`, { config: { access: 'public' }, schema: { params: ChurchPlan, response: { 200: Tree } } }, (req, reply) => sendTree(req, reply, req.params.churchId, req.params.planId));
  app.get(`${base}/:id`, { ...read, schema: { params: IdParams, response: { 200: PlanItem } } }, async (req) => (await getRow(app.db, planItems, req.auth.churchId, req.params.id, 'Plan item')) as never);

  /** Saves items after checking their plan and parents (never a loop); in the caller's transaction. */
  const saveItems = async (tx: Tx, req: FastifyRequest, items: Array<z.output<typeof PlanItemSave>>) => {
    const churchId = req.auth.churchId;
    const rows = [];
    // Each plan's parents as this batch leaves them, read once: two items naming each other close a loop as surely as one.
    const parents = new Map<string, Map<string, string | null>>();
    const parentsOf = async (planId: string) => parents.get(planId) ?? parents.set(planId, await parentsIn(tx, churchId, planId)).get(planId)!;
    for (const [i, item] of items.entries()) {
      await requireRef(tx, plans, churchId, item.planId, itemParam(req, i, 'planId'), 'Plan');
      if (item.parentId) {
        const parent = await requireRef<{ planId: string }>(tx, planItems, churchId, item.parentId, itemParam(req, i, 'parentId'), 'Parent item');
        if (parent.planId !== item.planId) throw badRequest(itemParam(req, i, 'parentId'), 'belongs to another plan');
      }
      if (item.id && item.parentId !== undefined) {
        const parentOf = await parentsOf(item.planId);
        const id = item.id.toLowerCase();
        const parentId = item.parentId?.toLowerCase() ?? null;
        if (parentId) refuseLoop(parentOf, id, parentId, itemParam(req, i, 'parentId'));
        parentOf.set(id, parentId);
      }
      rows.push(item.sort === undefined && !item.id ? { ...item, sort: await nextSort(tx, churchId, item.planId, item.parentId ?? null) } : item);
    }
    return saveRows(tx, planItems, churchId, rows);
  };
  app.post(base, { ...read, schema: { body: batchOf(PlanItemSave), response: { 200: z.array(PlanItem) } } }, (req) => app.db.transaction(async (tx) => (await saveItems(tx, req, req.body)) as never));
  // An existing item moves (only its place and parent change, whatever else the app posts along); a new one is
  // saved first, as POST / would, then placed.
  app.post(`${base}/sort`, { ...read, schema: { body: SortBody, response: { 200: PlanItem } } }, (req) =>
    app.db.transaction(async (tx) => {
      const { sort, parentId } = req.body;
      let id = req.body.id;
      if (!id) {
        if (!req.body.planId) throw badRequest('planId', 'planId is required for a new item');
        const [created] = await saveItems(tx, req, [{ ...req.body, planId: req.body.planId }]);
        id = created!.id;
      }
      return (await sortItem(tx, req.auth.churchId, id, sort, parentId)) as never;
    }),
  );
  app.delete(`${base}/:id`, { ...read, schema: { params: IdParams } }, async (req) => {
    await deleteItem(app.db, req.auth.churchId, req.params.id);
    return {};
  });

  app.get('/doing/planFeed/presenter/:churchId/:planId', { config: { access: 'public' }, schema: { params: ChurchPlan, response: { 200: Feed } } }, async (req) => {
    const { churchId, planId } = req.params;
    const plan = (await getRow(app.db, plans, churchId, planId, 'Plan')) as typeof plans.$inferSelect;
    const head = { planId: plan.id, name: plan.name, serviceDate: plan.serviceDate, contentId: plan.contentId };
    const items = await itemTree(app.db, churchId, planId);
    if (items.length) return { ...head, source: 'plan' as const, items };
    if (!plan.contentId) return { ...head, source: 'none' as const, items: [] };
    const venue = await doing.deps(app).providers.lessonFeed.venueFeed(plan.contentId);
    return { ...head, source: 'lessonFeed' as const, items: feedItems(churchId, planId, venue) };
  });
}
