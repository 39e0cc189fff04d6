import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, REMOTE, crud, rowsByIds, type ZodTypeProvider } from '@church/common';
import { planTypes } from '../db/schema';
import { planTypesOfMinistry } from '../repos/plan-types';
import { ministryScope, outsideMinistry, refuseOutside } from '../repos/refs';
import { editableMinistries, ministryEditor } from './access';
import { IdsQuery, PlanType, PlanTypeSave } from '../schemas';

const base = '/doing/planTypes';
const List = z.array(PlanType);

/**
 * `/doing/planTypes`: read by anyone signed in (spec); written by holders of Plans.Edit and, for their ministry's
 * types, the ministry's team (issue 31: the spec's "no permission checks" let a guest create them).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  app.get(`${base}/ids`, { ...read, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: List } } }, (req) => rowsByIds(app.db, planTypes, req.auth.churchId, req.query.ids));
  app.get(`${base}/ministryId/:ministryId`, { ...read, schema: { params: z.object({ ministryId: Id }), response: { 200: List } } }, (req) => planTypesOfMinistry(app.db, req.auth.churchId, req.params.ministryId));
  const scope = (req: Parameters<typeof editableMinistries>[0]) => ministryScope(editableMinistries(req), planTypes.ministryId, 'ministry', req.auth.churchId);
  crud(app, {
    path: base,
    name: 'Plan type',
    table: planTypes,
    item: PlanType,
    save: PlanTypeSave,
    view: anyUser,
    edit: ministryEditor,
    orderBy: planTypes.name,
    // the ministry is one of the church's groups (membership's)
    references: { ministryId: REMOTE.groups },
    scope: { where: (req, verb) => (verb === 'list' || verb === 'get' ? undefined : scope(req)), refuse: outsideMinistry },
    afterSave: (rows, req, tx) => refuseOutside(tx, planTypes, req.auth.churchId, rows.map((r) => r.id), scope(req), outsideMinistry),
    changes: { entityType: 'planType' },
  });
}
