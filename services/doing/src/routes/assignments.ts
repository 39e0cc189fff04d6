import type { FastifyInstance } from 'fastify';
import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, IdParams, badRequest, batchOf, crud, itemParam, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { assignments, plans, positions } from '../db/schema';
import { requireRef } from '../repos/refs';
import { ofPlans } from '../repos/plans';
import { answerAssignment } from '../repos/assignments';
import { notifyTeamLeaders } from '../jobs';
import { Assignment, AssignmentAnswer, AssignmentSave, IdsQuery } from '../schemas';

const base = '/doing/assignments';
const List = z.array(Assignment);

/** `/doing/assignments`: who serves where; the assignee accepts or declines, and the team's leaders hear of it. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };

  app.get(`${base}/my`, { ...read, schema: { response: { 200: List } } }, async (req) => {
    if (!req.auth.personId) return [];
    return app.db
      .select({ assignment: assignments })
      .from(assignments)
      .leftJoin(plans, and(eq(plans.id, assignments.planId), eq(plans.churchId, req.auth.churchId)))
      .where(and(eq(assignments.churchId, req.auth.churchId), eq(assignments.personId, req.auth.personId)))
      .orderBy(desc(plans.serviceDate))
      .then((rows) => rows.map((r) => r.assignment));
  });
  app.get(`${base}/plan/ids`, { ...read, schema: { querystring: z.object({ planIds: IdsQuery }), response: { 200: List } } }, (req) => ofPlans(app.db, assignments, req.auth.churchId, req.query.planIds));
  app.get(`${base}/plan/:planId`, { ...read, schema: { params: z.object({ planId: Id }), response: { 200: List } } }, (req) => ofPlans(app.db, assignments, req.auth.churchId, [req.params.planId]));

  app.post(base, { ...read, schema: { body: batchOf(AssignmentSave), response: { 200: List } } }, (req) =>
    app.db.transaction(async (tx) => {
      const rows = [];
      // Given to someone else without a status, an assignment goes back to Unconfirmed: the answer was the other person's.
      const updates = req.body.flatMap((item) => (item.id && item.status === undefined ? [item.id.toLowerCase()] : []));
      const storedPerson = new Map((await rowsByIds(tx, assignments, req.auth.churchId, updates)).map((r) => [r.id, r.personId]));
      for (const [i, item] of req.body.entries()) {
        const position = await requireRef<typeof positions.$inferSelect>(tx, positions, req.auth.churchId, item.positionId, itemParam(req, i, 'positionId'), 'Position');
        if (item.planId && item.planId !== position.planId) throw badRequest(itemParam(req, i, 'planId'), 'must be the plan of the position');
        let status = item.id ? item.status : (item.status ?? 'Unconfirmed');
        const stored = item.id && status === undefined ? storedPerson.get(item.id.toLowerCase()) : undefined;
        if (stored !== undefined && stored !== item.personId.toLowerCase()) status = 'Unconfirmed';
        rows.push({ ...item, planId: position.planId, ...(status === undefined ? {} : { status }) });
      }
      return (await saveRows(tx, assignments, req.auth.churchId, rows)) as never;
    }),
  );

  for (const [verb, status] of [['accept', 'Accepted'], ['decline', 'Declined']] as const) {
    app.post(`${base}/${verb}/:id`, { ...read, schema: { params: IdParams, response: { 200: AssignmentAnswer } } }, async (req) => {
      const { row, changed } = await answerAssignment(app.db, req.auth.churchId, req.params.id, req.auth.personId, status);
      if (changed) await app.deps.queue.enqueue(notifyTeamLeaders, { churchId: req.auth.churchId, assignmentId: row.id, status }, { jobId: `notify-${row.id}-${status}-${row.updatedAt.getTime()}` });
      return row;
    });
  }

  crud(app, { path: base, table: assignments, item: Assignment, save: AssignmentSave, view: anyUser, edit: anyUser, only: ['get', 'delete'] });
}
