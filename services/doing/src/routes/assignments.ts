import type { FastifyInstance, FastifyRequest } from 'fastify';
import { and, desc, eq, isNull, or } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, IdParams, badRequest, batchOf, crud, itemParam, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { assignments, plans, positions } from '../db/schema';
import { requireRef } from '../repos/refs';
import { ofPlans } from '../repos/plans';
import { answerAssignment, leaveSignup, monthCounts, signUp } from '../repos/assignments';
import { notifyTeamLeaders } from '../jobs';
import { utcDay } from '../domain/tree';
import { Assignment, AssignmentAnswer, AssignmentSave, IdsQuery, LocalDate, MonthCount, SignupBody } from '../schemas';

const ANSWERS = { accept: 'Accepted', decline: 'Declined' } as const;

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
      // A penciled-in plan's assignments stay hidden from the volunteer until the plan is published.
      .where(and(eq(assignments.churchId, req.auth.churchId), eq(assignments.personId, req.auth.personId), or(isNull(plans.id), eq(plans.prepared, false))))
      .orderBy(desc(plans.serviceDate))
      .then((rows) => rows.map((r) => r.assignment));
  });
  // PlanValidation: how often each person serves in the plan's month, against their scheduling preference.
  app.get(`${base}/monthCounts`, { ...read, schema: { querystring: z.object({ date: LocalDate.optional() }), response: { 200: z.array(MonthCount) } } }, (req) =>
    monthCounts(app.db, req.auth.churchId, req.query.date ?? utcDay()),
  );
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

  const answer = async (req: FastifyRequest, id: string, status: 'Accepted' | 'Declined') => {
    const { row, changed } = await answerAssignment(app.db, req.auth.churchId, id, req.auth.personId, status);
    if (changed) await app.deps.queue.enqueue(notifyTeamLeaders, { churchId: req.auth.churchId, assignmentId: row.id, status }, { jobId: `notify-${row.id}-${status}-${row.updatedAt.getTime()}` });
    return row;
  };
  for (const [verb, status] of Object.entries(ANSWERS)) {
    app.post(`${base}/${verb}/:id`, { ...read, schema: { params: IdParams, response: { 200: AssignmentAnswer } } }, (req) => answer(req, req.params.id, status));
  }
  // The same answers with the id first (`/assignments/:id/accept`): B1App's PlanDetail builds its path from the
  // action and the id, and either order reaches the assignee's answer.
  app.post(`${base}/:id/:action`, { ...read, schema: { params: z.object({ id: Id, action: z.enum(['accept', 'decline']) }), response: { 200: AssignmentAnswer } } }, (req) =>
    answer(req, req.params.id, ANSWERS[req.params.action]),
  );

  // A member takes an open place of a position that allows self sign-up (B1App's VolunteerDetail and
  // VolunteerSignup), and leaves it; the team's leaders hear of a sign-up.
  app.post(`${base}/signup`, { ...read, schema: { body: SignupBody, response: { 200: Assignment } } }, async (req) => {
    const row = await signUp(app.db, req.auth.churchId, req.auth.personId, req.body.positionId);
    await app.deps.queue.enqueue(notifyTeamLeaders, { churchId: req.auth.churchId, assignmentId: row.id, status: 'SignedUp' }, { jobId: `notify-${row.id}-SignedUp-${row.updatedAt.getTime()}` });
    return row;
  });
  app.delete(`${base}/signup/:id`, { ...read, schema: { params: IdParams } }, async (req) => {
    await leaveSignup(app.db, req.auth.churchId, req.auth.personId, req.params.id);
    return {};
  });

  crud(app, { path: base, table: assignments, item: Assignment, save: AssignmentSave, view: anyUser, edit: anyUser, only: ['get', 'delete'] });
}
