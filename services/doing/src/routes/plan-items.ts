import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { actorOf, Empty, Id, IdParams, batchOf, getRow, itemParam, rowsByIds, type ZodTypeProvider } from '@church/common';
import { planItems, plans } from '../db/schema';
import { itemTree } from '../repos/plan-items';
import { feedItems } from '../domain/plan-feed';
import { editableMinistries, ministryEditor } from './access';
import { deletePlanItem, placePlanItem, savePlanItemsOf } from '../domain/plan-items';
import { doingDeps } from '../deps';
import { IdsQuery, PlanFeed, PlanItem, PlanItemSave, PlanItemTree, SortBody } from '../schemas';

const base = '/doing/planItems';
const Tree = z.array(PlanItemTree);
const ChurchPlan = z.object({ churchId: Id, planId: Id });

/**
 * `/doing/planItems` (the service order as a tree) and `/doing/planFeed` (what the presenter shows). Read by anyone
 * signed in (spec); changed by holders of Plans.Edit and the plan's ministry's team (issue 31).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  const edit = { config: { access: ministryEditor } };

  app.get(`${base}/ids`, { ...read, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: z.array(PlanItem) } } }, (req) => rowsByIds(app.db, planItems, req.auth.churchId, req.query.ids));
  // The service order is read far more often than it changes (every screen of a service, every presenter):
  // each answer is kept per church, plan and data version (writes to plan_items raise the version) and sent
  // again, compressed once, for one primary-key lookup; a client that holds it gets 304.
  const sendTree = (req: FastifyRequest, reply: FastifyReply, churchId: string, planId: string) =>
    app.deps.snapshots.send(req, reply, churchId, planId, () => itemTree(app.db, churchId, planId));
  app.get(`${base}/plan/:planId`, { ...read, schema: { params: z.object({ planId: Id }), response: { 200: Tree } } }, (req, reply) => sendTree(req, reply, req.auth.churchId, req.params.planId));
  app.get(`${base}/presenter/:churchId/:planId`, { config: { access: 'public' }, schema: { params: ChurchPlan, response: { 200: Tree } } }, (req, reply) => sendTree(req, reply, req.params.churchId, req.params.planId));
  app.get(`${base}/:id`, { ...read, schema: { params: IdParams, response: { 200: PlanItem } } }, (req) => getRow(app.db, planItems, req.auth.churchId, req.params.id, 'Plan item'));

  // Items of the caller's plans only (Plans.Edit, or the plan's ministry's team): domain/plan-items.ts.
  app.post(base, { ...edit, schema: { body: batchOf(PlanItemSave), response: { 200: z.array(PlanItem) } } }, (req) =>
    savePlanItemsOf(app.deps, actorOf(req), editableMinistries(req), req.body, (i, f) => itemParam(req, i, f)),
  );
  // An existing item moves (only its place and parent change, whatever else the app posts along); a new one is
  // saved first, as POST / would, then placed.
  app.post(`${base}/sort`, { ...edit, schema: { body: SortBody, response: { 200: PlanItem } } }, (req) =>
    placePlanItem(app.deps, actorOf(req), editableMinistries(req), req.body, (i, f) => itemParam(req, i, f)),
  );
  app.delete(`${base}/:id`, { ...edit, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await deletePlanItem(app.deps, actorOf(req), editableMinistries(req), req.params.id);
    return {};
  });

  app.get('/doing/planFeed/presenter/:churchId/:planId', { config: { access: 'public' }, schema: { params: ChurchPlan, response: { 200: PlanFeed } } }, async (req) => {
    const { churchId, planId } = req.params;
    const plan = await getRow(app.db, plans, churchId, planId, 'Plan');
    const head = { planId: plan.id, name: plan.name, serviceDate: plan.serviceDate, contentId: plan.contentId };
    const items = await itemTree(app.db, churchId, planId);
    if (items.length) return { ...head, source: 'plan' as const, items };
    if (!plan.contentId) return { ...head, source: 'none' as const, items: [] };
    const venue = await doingDeps(app).providers.lessonFeed.venueFeed(plan.contentId);
    return { ...head, source: 'lessonFeed' as const, items: feedItems(churchId, planId, venue) };
  });
}
