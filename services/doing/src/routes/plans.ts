import type { FastifyInstance, FastifyRequest } from 'fastify';
import { anyUser } from '@church/auth';
import { actorOf, assertReferences, badRequest, checkReferences, crud, IdParams, notFound, notifyPeople, REMOTE, rowsByIds, utcDay, type ZodTypeProvider } from '@church/common';
import { planTypes, plans } from '../db/schema';
import { ministryScope, outsideMinistry, refuseOutside } from '../repos/refs';
import { churchPlans, copyPlan, currentPlan, deletePlanParts, overview, plansBetween, plansOfType, signupPlans } from '../repos/plans';
import { autofillPlan, undoAutofill } from '../repos/scheduling';
import { daysBetween } from '../lib/days';
import { schedulesByPerson } from '../domain/serving-schedule';
import { editableMinistries, ministryAccessOf, ministryEditor } from './access';
import { change, report } from '../domain/changes';
import { AutofillAnswer, AutofillBody, ChurchParams, CopyBody, IdsQueryString, NotifyRangeAnswer, NotifyRangeBody, OverviewQuery, OverviewRows, Plan, PlanList, PlanSave, PlanTypeParams, SignupPlans, UndoneAutofill } from '../schemas';

const base = '/doing/plans';
/**
 * What a plan names: its type (doing's), ministry (a group) and campus (attendance's). `contentId` names the lesson
 * venue the plan follows at the content provider, no record of the church.
 */
const PLAN_REFERENCES = { planTypeId: planTypes, ministryId: REMOTE.groups, campusId: REMOTE.campuses };
/** `GET /presenter`: plans of the next 7 days (spec limit), today included. */
export const PRESENTER_DAYS = 7;
/** The longest range the serving matrix and its notice cover (a year and a day, so any calendar year fits). */
export const MAX_RANGE_DAYS = 366;
/** People one "Email all" tells at most; the answer says `capped` when there were more. */
export const NOTIFY_RANGE_CAP = 1000;

/** A range's days in order and no longer than `MAX_RANGE_DAYS`, or a 400 naming `endDate` (in the query or the body). */
function checkRange(q: { startDate: string; endDate: string }, location: 'query' | 'body') {
  const days = daysBetween(q.startDate, q.endDate);
  if (days < 0) throw badRequest('endDate', 'must not be before startDate', location);
  if (days > MAX_RANGE_DAYS) throw badRequest('endDate', `must be at most ${MAX_RANGE_DAYS} days after startDate`, location);
}

/**
 * `/doing/plans`: plans, copies and autofill. Read by anyone signed in (spec); changed by holders of Plans.Edit and
 * the plan's ministry's team (issue 31).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  const edit = { config: { access: ministryEditor } };
  const scope = (req: FastifyRequest) => ministryScope(editableMinistries(req), plans.ministryId, 'ministry', req.auth.churchId);
  /** The plan, once the caller may edit its ministry (a query only for callers without Plans.Edit). */
  const mayEditPlan = async (req: FastifyRequest, planId: string) => {
    if (editableMinistries(req)) await ministryAccessOf(app.deps, req).plan(app.db, planId);
  };

  app.get(`${base}/ids`, { ...read, schema: { querystring: IdsQueryString, response: { 200: PlanList } } }, (req) => rowsByIds(app.db, plans, req.auth.churchId, req.query.ids));
  // The whole lists (B1Admin's plan pages filter them by ministry and date themselves): every plan of the church, so
  // megabytes of JSON for a church that plans every day. Each is kept per church (and plan type) and data version,
  // serialized and compressed once (writes to the plans' answered columns raise the version, migration
  // 0011_plans_data_version), and sent again for one primary-key lookup; a client that holds it gets 304.
  app.get(base, { ...read, schema: { response: { 200: PlanList } } }, (req, reply) =>
    app.deps.snapshots.send(req, reply, req.auth.churchId, '', () => churchPlans(app.db, req.auth.churchId)),
  );
  app.get(`${base}/types/:planTypeId`, { ...read, schema: { params: PlanTypeParams, response: { 200: PlanList } } }, (req, reply) =>
    app.deps.snapshots.send(req, reply, req.auth.churchId, req.params.planTypeId.toLowerCase(), () => plansOfType(app.db, req.auth.churchId, req.params.planTypeId)),
  );
  // B1Admin's serving matrix (ServingOverviewPage): literal, so it is never read as a plan id.
  app.get(`${base}/overview`, { ...read, schema: { querystring: OverviewQuery, response: { 200: OverviewRows } } }, (req) => {
    checkRange(req.query, 'query');
    return overview(app.db, req.auth.churchId, req.query);
  });
  app.get(`${base}/presenter`, { ...read, schema: { response: { 200: PlanList } } }, (req) => plansBetween(app.db, req.auth.churchId, utcDay(), utcDay(PRESENTER_DAYS)));
  app.get(`${base}/public/current/:planTypeId`, { config: { access: 'public' }, schema: { params: PlanTypeParams, response: { 200: Plan } } }, async (req) => {
    const plan = await currentPlan(app.db, req.params.planTypeId, utcDay());
    if (!plan) throw notFound('Plan');
    return plan;
  });
  // B1App's volunteer pages (public site and app): the church's published plans from today on that take sign-ups,
  // with their open positions (how many are filled) and times; only what the pages show leaves.
  app.get(`${base}/public/signup/:churchId`, { config: { access: 'public' }, schema: { params: ChurchParams, response: { 200: SignupPlans } } }, (req) =>
    signupPlans(app.db, req.params.churchId, utcDay()),
  );

  crud(app, {
    path: base,
    name: 'Plan',
    table: plans,
    item: Plan,
    save: PlanSave,
    view: anyUser,
    edit: ministryEditor,
    only: ['get', 'save', 'delete'], // the list is kept (above)
    references: PLAN_REFERENCES,
    scope: { where: (req, verb) => (verb === 'list' || verb === 'get' ? undefined : scope(req)), refuse: outsideMinistry },
    afterSave: (rows, req, tx) => refuseOutside(tx, plans, req.auth.churchId, rows.map((r) => r.id), scope(req), outsideMinistry),
    // a plan takes its times, positions, assignments and service order with it
    beforeDelete: (row, req, tx) => deletePlanParts(tx, req.auth.churchId, row.id),
    changes: { entityType: 'plan' },
  });

  app.post(`${base}/copy/:id`, { ...edit, schema: { params: IdParams, body: CopyBody, response: { 200: Plan } } }, async (req) => {
    const churchId = req.auth.churchId;
    const access = ministryAccessOf(app.deps, req);
    const source = await access.plan(app.db, req.params.id);
    if (req.body.ministryId !== undefined && req.body.ministryId !== source.ministryId) await access.ministry(req.body.ministryId);
    await checkReferences(req, [req.body], PLAN_REFERENCES);
    return app.deps.queue.transaction(app.db, async (tx) => {
      const copy = await copyPlan(tx, churchId, source.id, req.body);
      await report(app.deps, actorOf(req), [change('plan', undefined, copy)], tx);
      return copy;
    });
  });

  app.post(`${base}/autofill/:id`, { ...edit, schema: { params: IdParams, body: AutofillBody, response: { 200: AutofillAnswer } } }, async (req) => {
    await mayEditPlan(req, req.params.id);
    // the people are the church's (membership's); the positions are checked in the run, as the plan's
    const people = req.body.teams.map((team) => ({ personIds: team.personIds.map((id) => id.toLowerCase()) }));
    await assertReferences(app.deps, req.auth.churchId, people, { personIds: REMOTE.people }, (i, field) => `teams[${i}].${field}`);
    // The run's assignments are reported in its transaction (one outbox row, committed with them and handed on after
    // the commit without the request waiting), not in a write and a commit of their own after it.
    return app.deps.queue.transaction(app.db, async (tx) => {
      const filled = await autofillPlan(tx, req.auth.churchId, req.params.id, req.body.teams);
      await report(app.deps, actorOf(req), filled.assignments.map((a) => change('assignment', undefined, { ...a, autofillRunId: filled.runId })), tx);
      return filled;
    });
  });
  // The same access as autofill itself: whoever may fill a plan may take the fill back.
  app.post(`${base}/autofill/:id/undo`, { ...edit, schema: { params: IdParams, response: { 200: UndoneAutofill } } }, async (req) => {
    await mayEditPlan(req, req.params.id);
    return app.deps.queue.transaction(app.db, async (tx) => {
      const gone = await undoAutofill(tx, req.auth.churchId, req.params.id);
      await report(app.deps, actorOf(req), gone.map((a) => change('assignment', a, undefined)), tx);
      return { removed: gone.length };
    });
  });

  // "Email all" of the serving matrix: each person serving in the range hears of their own plans (penciled-in plans
  // are left out: volunteers do not see them yet), through messaging's notifyPeople; all the notices are queued in
  // one transaction, so either every one is on its way or the call fails and can be repeated.
  app.post(`${base}/notifyRange`, { ...edit, schema: { body: NotifyRangeBody, response: { 200: NotifyRangeAnswer } } }, async (req) => {
    checkRange(req.body, 'body');
    await ministryAccessOf(app.deps, req).ministry(req.body.ministryId);
    const schedules = schedulesByPerson(await overview(app.db, req.auth.churchId, { ...req.body, published: true }));
    const told = schedules.slice(0, NOTIFY_RANGE_CAP);
    const stamp = Date.now();
    if (told.length) {
      await app.deps.queue.transaction(app.db, async (tx) => {
        for (const s of told) {
          await app.deps.queue.enqueue(
            notifyPeople,
            { churchId: req.auth.churchId, personIds: [s.personId], message: s.message, contentType: 'schedule', contentId: s.firstPlanId, link: '/mobile/plans' },
            { jobId: `doing.notifyRange.${req.auth.churchId}.${s.personId}.${stamp}`, tx },
          );
        }
      });
    }
    return { sent: told.length, failed: 0, capped: schedules.length > told.length };
  });
}
