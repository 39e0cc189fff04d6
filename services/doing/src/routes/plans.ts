import type { FastifyInstance } from 'fastify';
import { desc } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, IdParams, badRequest, batchOf, getRow, itemParam, listRows, notFound, notifyPeople, rowsByIds, saveRows, type ZodTypeProvider } from '@church/common';
import { planTypes, plans } from '../db/schema';
import { requireRef } from '../repos/refs';
import { copyPlan, currentPlan, deletePlan, overview, plansBetween, plansOfType } from '../repos/plans';
import { autofillPlan, undoAutofill } from '../repos/scheduling';
import { daysBetween, utcDay } from '../domain/tree';
import { schedulesByPerson } from '../domain/serving-schedule';
import { ministryAccess, ministryEditor } from '../domain/ministry-access';
import { AutofillAnswer, AutofillBody, CopyBody, IdsQuery, NotifyRangeAnswer, NotifyRangeBody, OverviewQuery, OverviewRow, Plan, PlanSave } from '../schemas';

const base = '/doing/plans';
const List = z.array(Plan);
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

/** `/doing/plans`: plans, copies and autofill. Spec: doing routes need only a JWT. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };

  app.get(base, { ...read, schema: { response: { 200: List } } }, async (req) => (await listRows(app.db, plans, req.auth.churchId, { orderBy: [desc(plans.serviceDate), plans.id] })) as never);
  app.get(`${base}/ids`, { ...read, schema: { querystring: z.object({ ids: IdsQuery }), response: { 200: List } } }, async (req) => (await rowsByIds(app.db, plans, req.auth.churchId, req.query.ids)) as never);
  app.get(`${base}/types/:planTypeId`, { ...read, schema: { params: z.object({ planTypeId: Id }), response: { 200: List } } }, (req) => plansOfType(app.db, req.auth.churchId, req.params.planTypeId));
  // B1Admin's serving matrix (ServingOverviewPage): literal, so it is never read as a plan id.
  app.get(`${base}/overview`, { ...read, schema: { querystring: OverviewQuery, response: { 200: z.array(OverviewRow) } } }, (req) => {
    checkRange(req.query, 'query');
    return overview(app.db, req.auth.churchId, req.query);
  });
  app.get(`${base}/presenter`, { ...read, schema: { response: { 200: List } } }, (req) => plansBetween(app.db, req.auth.churchId, utcDay(), utcDay(PRESENTER_DAYS)));
  app.get(`${base}/public/current/:planTypeId`, { config: { access: 'public' }, schema: { params: z.object({ planTypeId: Id }), response: { 200: Plan } } }, async (req) => {
    const plan = await currentPlan(app.db, req.params.planTypeId, utcDay());
    if (!plan) throw notFound('Plan');
    return plan;
  });
  app.get(`${base}/:id`, { ...read, schema: { params: IdParams, response: { 200: Plan } } }, async (req) => (await getRow(app.db, plans, req.auth.churchId, req.params.id, 'Plan')) as never);

  app.post(base, { ...read, schema: { body: batchOf(PlanSave), response: { 200: List } } }, (req) =>
    app.db.transaction(async (tx) => {
      const churchId = req.auth.churchId;
      for (const [i, item] of req.body.entries()) if (item.planTypeId) await requireRef(tx, planTypes, churchId, item.planTypeId, itemParam(req, i, 'planTypeId'), 'Plan type');
      return (await saveRows(tx, plans, churchId, req.body)) as never;
    }),
  );

  app.post(`${base}/copy/:id`, { ...read, schema: { params: IdParams, body: CopyBody, response: { 200: Plan } } }, async (req) => {
    if (req.body.planTypeId) await requireRef(app.db, planTypes, req.auth.churchId, req.body.planTypeId, 'planTypeId', 'Plan type');
    return copyPlan(app.db, req.auth.churchId, req.params.id, req.body);
  });

  app.post(`${base}/autofill/:id`, { ...read, schema: { params: IdParams, body: AutofillBody, response: { 200: AutofillAnswer } } }, (req) =>
    autofillPlan(app.db, req.auth.churchId, req.params.id, req.body.teams),
  );
  // The same access as autofill itself: whoever may fill a plan may take the fill back.
  app.post(`${base}/autofill/:id/undo`, { ...read, schema: { params: IdParams, response: { 200: z.object({ removed: z.number() }) } } }, (req) => undoAutofill(app.db, req.auth.churchId, req.params.id));

  // "Email all" of the serving matrix: each person serving in the range hears of their own plans (penciled-in plans
  // are left out: volunteers do not see them yet), through messaging's notifyPeople.
  app.post(`${base}/notifyRange`, { config: { access: ministryEditor }, schema: { body: NotifyRangeBody, response: { 200: NotifyRangeAnswer } } }, async (req) => {
    checkRange(req.body, 'body');
    await ministryAccess(app.deps.internal, req).ministry(req.body.ministryId);
    const schedules = schedulesByPerson(await overview(app.db, req.auth.churchId, { ...req.body, published: true }));
    const told = schedules.slice(0, NOTIFY_RANGE_CAP);
    let failed = 0;
    const stamp = Date.now();
    for (const s of told) {
      await app.deps.queue
        .enqueue(
          notifyPeople,
          { churchId: req.auth.churchId, personIds: [s.personId], message: s.message, contentType: 'schedule', contentId: s.firstPlanId, link: '/mobile/plans' },
          { jobId: `doing.notifyRange.${req.auth.churchId}.${s.personId}.${stamp}` },
        )
        .catch((err: unknown) => {
          failed++;
          req.log.warn({ err, personId: s.personId }, 'serving schedule notice not queued');
        });
    }
    return { sent: told.length - failed, failed, capped: schedules.length > told.length };
  });

  app.delete(`${base}/:id`, { ...read, schema: { params: IdParams } }, async (req) => {
    await deletePlan(app.db, req.auth.churchId, req.params.id);
    return {};
  });
}
