import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { actorOf, Id, batchOf, crud, itemParam, type ZodTypeProvider } from '@church/common';
import { planItemTimes } from '../db/schema';
import { saveStandings, standingsOfItem, standingsOfPlan } from '../repos/plan-item-times';
import { ministryScope, outsideMinistry, refuseOutside } from '../repos/refs';
import { editableMinistries, ministryEditor } from './access';
import { changesOf, report } from '../domain/changes';
import { PlanItemTime, PlanItemTimeSave } from '../schemas';

const base = '/doing/planItemTimes';
const List = z.array(PlanItemTime);

/**
 * `/doing/planItemTimes`: which items of a plan's service order are left out of which of its times (B1Admin's
 * PlanItemEdit, ServiceOrder, PrintPlan). Part of the service order: read as plan items are (a JWT), changed by
 * holders of Plans.Edit and the plan's ministry's team.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  const scope = (req: FastifyRequest) => ministryScope(editableMinistries(req), planItemTimes.planId, 'plan', req.auth.churchId);
  app.get(`${base}/plan/:planId`, { ...read, schema: { params: z.object({ planId: Id }), response: { 200: List } } }, (req) => standingsOfPlan(app.db, req.auth.churchId, req.params.planId));
  app.get(`${base}/planItem/:planItemId`, { ...read, schema: { params: z.object({ planItemId: Id }), response: { 200: List } } }, (req) => standingsOfItem(app.db, req.auth.churchId, req.params.planItemId));
  app.post(base, { config: { access: ministryEditor }, schema: { body: batchOf(PlanItemTimeSave), response: { 200: List } } }, (req) =>
    app.deps.queue.transaction(app.db, async (tx) => {
      const churchId = req.auth.churchId;
      await refuseOutside(tx, planItemTimes, churchId, req.body.flatMap((i) => (i.id ? [i.id.toLowerCase()] : [])), scope(req), outsideMinistry);
      const { written, stored } = await saveStandings(tx, churchId, req.body, (i, f) => itemParam(req, i, f));
      await refuseOutside(tx, planItemTimes, churchId, written.map((r) => r.id), scope(req), outsideMinistry);
      await report(app.deps, actorOf(req), changesOf('planItemTime', written, stored), tx);
      return written;
    }),
  );
  crud(app, {
    path: base,
    name: 'Plan item time',
    table: planItemTimes,
    item: PlanItemTime,
    save: PlanItemTimeSave,
    view: anyUser,
    edit: ministryEditor,
    only: ['get', 'delete'],
    scope: { where: (req, verb) => (verb === 'get' ? undefined : scope(req)), refuse: outsideMinistry },
    changes: { entityType: 'planItemTime' },
  });
}
