import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, REMOTE, crud, rowsByIds, type ZodTypeProvider } from '@church/common';
import { plans, positions } from '../db/schema';
import { ministryScope, outsideMinistry, refuseOutside } from '../repos/refs';
import { ofPlans } from '../repos/plans';
import { deletePositionParts } from '../repos/positions';
import { editableMinistries, ministryEditor } from './access';
import { IdsQuery, Position, PositionSave } from '../schemas';

const base = '/doing/positions';
const List = z.array(Position);

/**
 * `/doing/positions`: read by anyone signed in (spec), by ids and by plans; changed by holders of Plans.Edit and the
 * plan's ministry's team (issue 31).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  const scope = (req: FastifyRequest) => ministryScope(editableMinistries(req), positions.planId, 'plan', req.auth.churchId);
  app.get(`${base}/ids`, { ...read, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: List } } }, (req) => rowsByIds(app.db, positions, req.auth.churchId, req.query.ids));
  app.get(`${base}/plan/ids`, { ...read, schema: { querystring: z.object({ planIds: IdsQuery }), response: { 200: List } } }, (req) => ofPlans(app.db, positions, req.auth.churchId, req.query.planIds));
  app.get(`${base}/plan/:planId`, { ...read, schema: { params: z.object({ planId: Id }), response: { 200: List } } }, (req) => ofPlans(app.db, positions, req.auth.churchId, [req.params.planId]));
  crud(app, {
    path: base,
    name: 'Position',
    table: positions,
    item: Position,
    save: PositionSave,
    view: anyUser,
    edit: ministryEditor,
    only: ['get', 'save', 'delete'],
    // the plan is the church's; the team one of its groups (membership's)
    references: { planId: plans, groupId: REMOTE.groups },
    scope: { where: (req, verb) => (verb === 'get' ? undefined : scope(req)), refuse: outsideMinistry },
    afterSave: (rows, req, tx) => refuseOutside(tx, positions, req.auth.churchId, rows.map((r) => r.id), scope(req), outsideMinistry),
    // deleting a position takes its assignments with it
    beforeDelete: (row, req, tx) => deletePositionParts(tx, req.auth.churchId, row.id),
    changes: { entityType: 'position' },
  });
}
