import type { FastifyInstance, FastifyRequest } from 'fastify';
import { anyUser } from '@church/auth';
import { actorOf, crud, IdParams, itemParam, notFound, rowsByIds, utcDay, type ZodTypeProvider } from '@church/common';
import { plans } from '../db/schema';
import { ministryScope, outsideMinistry, refuseOutside } from '../repos/refs';
import { churchPlans, currentPlan, deletePlanParts, overview, plansBetween, plansOfType, signupPlans } from '../repos/plans';
import { PLAN_REFERENCES, checkRange, copyPlanOf, notifyRange, runAutofill, undoLastAutofill } from '../domain/plans';
import { editableMinistries, ministryAccessOf, ministryEditor } from './access';
import { AutofillAnswer, AutofillBody, ChurchParams, CopyBody, IdsQueryString, NotifyRangeAnswer, NotifyRangeBody, OverviewQuery, OverviewRows, Plan, PlanList, PlanSave, PlanTypeParams, SignupPlans, UndoneAutofill } from '../schemas';

const base = '/doing/plans';
/** `GET /presenter`: plans of the next 7 days (spec limit), today included. */
export const PRESENTER_DAYS = 7;

/**
 * `/doing/plans`: plans, copies and autofill. Read by anyone signed in (spec); changed by holders of Plans.Edit and
 * the plan's ministry's team (issue 31).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };
  const edit = { config: { access: ministryEditor } };
  const scope = (req: FastifyRequest) => ministryScope(editableMinistries(req), plans.ministryId, 'ministry', req.auth.churchId);

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

  app.post(`${base}/copy/:id`, { ...edit, schema: { params: IdParams, body: CopyBody, response: { 200: Plan } } }, (req) =>
    copyPlanOf(app.deps, actorOf(req), ministryAccessOf(app.deps, req), req.params.id, req.body, (i, field) => itemParam(req, i, field)),
  );
  app.post(`${base}/autofill/:id`, { ...edit, schema: { params: IdParams, body: AutofillBody, response: { 200: AutofillAnswer } } }, (req) =>
    runAutofill(app.deps, actorOf(req), ministryAccessOf(app.deps, req), req.params.id, req.body.teams),
  );
  // The same access as autofill itself: whoever may fill a plan may take the fill back.
  app.post(`${base}/autofill/:id/undo`, { ...edit, schema: { params: IdParams, response: { 200: UndoneAutofill } } }, (req) =>
    undoLastAutofill(app.deps, actorOf(req), ministryAccessOf(app.deps, req), req.params.id),
  );
  // "Email all" of the serving matrix: each person serving in the range hears of their own plans (domain/plans.ts).
  app.post(`${base}/notifyRange`, { ...edit, schema: { body: NotifyRangeBody, response: { 200: NotifyRangeAnswer } } }, (req) =>
    notifyRange(app.deps, actorOf(req), ministryAccessOf(app.deps, req), req.body),
  );
}
