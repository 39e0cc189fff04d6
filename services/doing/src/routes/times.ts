import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, crud, listRows, type ZodTypeProvider } from '@church/common';
import { plans, times } from '../db/schema';
import { ministryScope, outsideMinistry, refuseOutside } from '../repos/refs';
import { ofPlans } from '../repos/plans';
import { deleteTimeParts } from '../repos/times';
import { editableMinistries, ministryEditor } from './access';
import { IdsQuery, Time, TimeSave } from '../schemas';

const base = '/doing/times';
const List = z.array(Time);

/** `/doing/times`: times of plans (rehearsals, services); changed by holders of Plans.Edit and the plan's ministry's team. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  const scope = (req: FastifyRequest) => ministryScope(editableMinistries(req), times.planId, 'plan', req.auth.churchId);
  app.get(`${base}/all`, { ...read, schema: { response: { 200: List } } }, (req) => listRows(app.db, times, req.auth.churchId, { orderBy: times.startTime }));
  app.get(`${base}/plans`, { ...read, schema: { querystring: z.object({ planIds: IdsQuery }), response: { 200: List } } }, (req) => ofPlans(app.db, times, req.auth.churchId, req.query.planIds));
  app.get(`${base}/plan/:planId`, { ...read, schema: { params: z.object({ planId: Id }), response: { 200: List } } }, (req) => ofPlans(app.db, times, req.auth.churchId, [req.params.planId]));
  crud(app, {
    path: base,
    name: 'Time',
    table: times,
    item: Time,
    save: TimeSave,
    view: anyUser,
    edit: ministryEditor,
    only: ['get', 'save', 'delete'],
    references: { planId: plans },
    scope: { where: (req, verb) => (verb === 'get' ? undefined : scope(req)), refuse: outsideMinistry },
    afterSave: (rows, req, tx) => refuseOutside(tx, times, req.auth.churchId, rows.map((r) => r.id), scope(req), outsideMinistry),
    // the service order's standings at a time go with it
    beforeDelete: (row, req, tx) => deleteTimeParts(tx, req.auth.churchId, row.id),
    changes: { entityType: 'time' },
  });
}
