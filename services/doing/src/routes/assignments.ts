import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { actorOf, batchOf, crud, Empty, Id, IdParams, itemParam, utcDay, type Tx, type ZodTypeProvider } from '@church/common';
import { assignments } from '../db/schema';
import { ofPlans } from '../repos/plans';
import { ministryScope, outsideMinistry } from '../repos/refs';
import { answerAssignment, leaveSignup, monthCounts, myAssignments, signUp, type AssignmentRow } from '../repos/assignments';
import { tellLeaders } from '../jobs/contracts';
import { editableMinistries, ministryEditor } from './access';
import { change, report } from '../domain/changes';
import { saveAssignmentsOf } from '../domain/assignments';
import { Assignment, AssignmentAnswer, AssignmentSave, IdsQuery, LocalDate, MonthCount, SignupBody } from '../schemas';

/** The answer routes' verbs, by the status each gives (`Map`: a caller's string never reaches Object's own names). */
const ANSWERS = new Map([
  ['accept', 'Accepted'],
  ['decline', 'Declined'],
] as const);

const base = '/doing/assignments';
const List = z.array(Assignment);

/**
 * `/doing/assignments`: who serves where. Coordinators (Plans.Edit or the plan's ministry's team) assign people; the
 * assigned person alone accepts or declines, and the team's leaders hear of it; members sign up for open places.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  const scope = (req: FastifyRequest) => ministryScope(editableMinistries(req), assignments.planId, 'plan', req.auth.churchId);

  app.get(`${base}/my`, { ...read, schema: { response: { 200: List } } }, async (req) => (req.auth.personId ? myAssignments(app.db, req.auth.churchId, req.auth.personId) : []));
  // PlanValidation: how often each person serves in the plan's month, against their scheduling preference.
  app.get(`${base}/monthCounts`, { ...read, schema: { querystring: z.object({ date: LocalDate.optional() }), response: { 200: z.array(MonthCount) } } }, (req) =>
    monthCounts(app.db, req.auth.churchId, req.query.date ?? utcDay()),
  );
  app.get(`${base}/plan/ids`, { ...read, schema: { querystring: z.object({ planIds: IdsQuery }), response: { 200: List } } }, (req) => ofPlans(app.db, assignments, req.auth.churchId, req.query.planIds));
  app.get(`${base}/plan/:planId`, { ...read, schema: { params: z.object({ planId: Id }), response: { 200: List } } }, (req) => ofPlans(app.db, assignments, req.auth.churchId, [req.params.planId]));

  /** The leaders hear of an answer or a sign-up; the job is written in the change's transaction. */
  const told = (tx: Tx, row: AssignmentRow, status: 'Accepted' | 'Declined' | 'SignedUp') => tellLeaders(app.deps.queue, tx, row, status);

  // the people assigned are the church's, positions are checked with the save, and both sides of the change are
  // of the caller's ministries (domain/assignments.ts)
  app.post(base, { config: { access: ministryEditor }, schema: { body: batchOf(AssignmentSave), response: { 200: List } } }, (req) =>
    saveAssignmentsOf(app.deps, actorOf(req), editableMinistries(req), req.body, (i, f) => itemParam(req, i, f)),
  );

  const answer = (req: FastifyRequest, id: string, status: 'Accepted' | 'Declined') =>
    app.deps.queue.transaction(app.db, async (tx) => {
      const { before, row, changed } = await answerAssignment(tx, req.auth.churchId, id, req.auth.personId, status);
      if (changed) {
        await told(tx, row, status);
        await report(app.deps, actorOf(req), [change('assignment', before, row)], tx);
      }
      return row;
    });
  for (const [verb, status] of ANSWERS) {
    app.post(`${base}/${verb}/:id`, { ...read, schema: { params: IdParams, response: { 200: AssignmentAnswer } } }, (req) => answer(req, req.params.id, status));
  }
  // The same answers with the id first (`/assignments/:id/accept`): B1App's PlanDetail builds its path from the
  // action and the id, and either order reaches the assignee's answer.
  app.post(`${base}/:id/:action`, { ...read, schema: { params: z.object({ id: Id, action: z.enum(['accept', 'decline']) }), response: { 200: AssignmentAnswer } } }, (req) =>
    answer(req, req.params.id, ANSWERS.get(req.params.action)!),
  );

  // A member takes an open place of a position that allows self sign-up (B1App's VolunteerDetail and
  // VolunteerSignup), and leaves it; the team's leaders hear of a sign-up.
  app.post(`${base}/signup`, { ...read, schema: { body: SignupBody, response: { 200: Assignment } } }, (req) =>
    app.deps.queue.transaction(app.db, async (tx) => {
      const { before, row } = await signUp(tx, req.auth.churchId, req.auth.personId, req.body.positionId);
      await told(tx, row, 'SignedUp');
      await report(app.deps, actorOf(req), [change('assignment', before, row, 'signedUp')], tx);
      return row;
    }),
  );
  app.delete(`${base}/signup/:id`, { ...read, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await app.deps.queue.transaction(app.db, async (tx) => {
      const gone = await leaveSignup(tx, req.auth.churchId, req.auth.personId, req.params.id);
      await report(app.deps, actorOf(req), [change('assignment', gone, undefined, 'withdrawn')], tx);
    });
    return {};
  });

  crud(app, {
    path: base,
    name: 'Assignment',
    table: assignments,
    item: Assignment,
    save: AssignmentSave,
    view: anyUser,
    edit: ministryEditor,
    only: ['get', 'delete'],
    scope: { where: (req, verb) => (verb === 'get' ? undefined : scope(req)), refuse: outsideMinistry },
    changes: { entityType: 'assignment' },
  });
}
