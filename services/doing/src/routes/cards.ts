import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission } from '@church/auth';
import { IdParams, REMOTE, assertReferences, notFound, rowsByIds, unauthorized, type Tx, type ZodTypeProvider } from '@church/common';
import { personOrGroup } from '../domain/references';
import { tasks } from '../db/schema';
import { membershipClient } from '../clients/membership';
import { staffEditor } from '../domain/ministry-access';
import { CardRun, subjectFacts } from '../domain/cards';
import { boardFrame, cardsOfPerson, openCards, stepsOf, type TaskRow } from '../repos/workflows';
import { Task } from '../schemas';
import {
  AddToWorkflowBody,
  Board,
  BulkAddBody,
  BulkAnswer,
  BulkBody,
  BulkMoveBody,
  BulkReassignBody,
  BulkSnoozeBody,
  CompleteBody,
  MoveStepBody,
  PinBody,
  ReassignBody,
  SnoozeBody,
} from '../schemas-workflows';

const base = '/doing/tasks';
const DirectionParams = z.object({ id: IdParams.shape.id, action: z.enum(['skip', 'sendBack']) });
type Op = (run: CardRun, card: TaskRow) => Promise<void>;

/**
 * Workflow cards (tasks with a `workflowId`): the board, "my cards", adding people to a workflow, and the card
 * operations. Adding and the board: Plans.Edit (`staffEditor`). A card's operations: Plans.Edit, or the person the
 * card is assigned to (declared `anyUser`, checked per card: another church's card is a 404, someone else's a 401;
 * the bulk forms skip such cards and say which).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const staff = { config: { access: staffEditor } };
  const signedIn = { config: { access: anyUser } };

  app.get(`${base}/board/:workflowId`, { ...staff, schema: { params: z.object({ workflowId: IdParams.shape.id }), response: { 200: Board } } }, async (req) => {
    const [frame, cards] = await Promise.all([boardFrame(app.db, req.auth.churchId, req.params.workflowId), openCards(app.db, req.auth.churchId, req.params.workflowId)]);
    if (!frame) throw notFound('Workflow');
    return { ...frame, cards };
  });

  app.get(`${base}/cards/my`, { ...signedIn, schema: { response: { 200: z.array(Task) } } }, async (req) => {
    const { churchId, personId } = req.auth;
    if (!personId) return [];
    let groups = req.auth.leaderGroupIds;
    try {
      groups = (await membershipClient(app.deps.internal).peopleFacts(churchId, [personId]))[0]?.groupIds ?? groups;
    } catch (err) {
      req.log.warn({ err }, 'membership unavailable; cards of led groups only');
    }
    return cardsOfPerson(app.db, churchId, personId, groups);
  });

  /** Runs `work` on cards about these people in one transaction; their facts (for `personMatch` routes) are asked first, outside it. */
  const inTx = async <T>(req: FastifyRequest, people: string[], work: (run: CardRun) => Promise<T>) => {
    const facts = await subjectFacts(app.deps, req.auth.churchId, people);
    return app.deps.queue.transaction(app.db, (tx) => work(new CardRun(app.deps, tx, req.auth.churchId, req, facts)));
  };
  const actor = (req: FastifyRequest) => ({ type: 'person', id: req.auth.personId, label: [req.auth.firstName, req.auth.lastName].filter(Boolean).join(' ') || null });

  /** The people and groups a body names are the church's (membership's), asked before any transaction. */
  const refs = (req: FastifyRequest, items: Array<Record<string, unknown>>, references: Parameters<typeof assertReferences>[3], param: (i: number, field: string) => string) =>
    assertReferences(app.deps, req.auth.churchId, items, references, param);
  /** A reassignment's assignee: a person unless it says group. */
  const assignee = (b: { assignedToType?: string | null; assignedToId?: string | null }) => ({ assignedToType: b.assignedToType ?? 'person', assignedToId: b.assignedToId });
  const checkAssignee = (req: FastifyRequest) => refs(req, [assignee(req.body as z.output<typeof ReassignBody>)], { assignedToId: personOrGroup('assignedToType') }, (_i, field) => field);

  app.post(`${base}/addToWorkflow`, { ...staff, schema: { body: AddToWorkflowBody, response: { 200: Task } } }, async (req) => {
    const subject = req.body.associatedWith;
    await refs(req, [{ type: subject.type ?? 'person', id: subject.id }], { id: personOrGroup('type') }, (_i, field) => `associatedWith.${field}`);
    return inTx(req, req.body.associatedWith.type === 'group' ? [] : [req.body.associatedWith.id], async (run) => {
      const { workflowId, stepId, associatedWith } = req.body;
      const step = await run.startStep(workflowId, stepId);
      const [card] = await run.create(workflowId, step, [{ type: associatedWith.type ?? 'person', id: associatedWith.id, label: associatedWith.label }], actor(req));
      return card!;
    });
  });

  app.post(`${base}/bulkAddToWorkflow`, { ...staff, schema: { body: BulkAddBody, response: { 200: z.array(Task) } } }, async (req) => {
    await refs(req, req.body.people, { id: REMOTE.people }, (i, field) => `people[${i}].${field}`);
    return inTx(req, req.body.people.map((p) => p.id), async (run) => {
      const { workflowId, stepId, people } = req.body;
      const step = await run.startStep(workflowId, stepId);
      const unique = [...new Map(people.map((p) => [p.id.toLowerCase(), p])).values()];
      return run.create(workflowId, step, unique.map((p) => ({ type: 'person', id: p.id, label: p.label })), actor(req));
    });
  });

  const mayEdit = (req: FastifyRequest, card: TaskRow) =>
    hasPermission(req.auth, 'Plans.Edit') || (card.assignedToType === 'person' && !!req.auth.personId && card.assignedToId?.toLowerCase() === req.auth.personId.toLowerCase());

  /** Loads the cards (this church's, locked for the change), applies `op` to those the caller may edit, saves each. */
  async function apply(req: FastifyRequest, tx: Tx, run: CardRun, ids: string[], op: Op) {
    const rows = new Map((await rowsByIds(tx, tasks, req.auth.churchId, ids)).map((r) => [r.id, r]));
    const done: TaskRow[] = [];
    const skipped: string[] = [];
    for (const id of ids) {
      const before = rows.get(id.toLowerCase());
      if (!before || !before.workflowId || before.status !== 'Open' || !mayEdit(req, before)) {
        skipped.push(id);
        continue;
      }
      const card = { ...before };
      await op(run, card);
      done.push(await run.save(before, card));
    }
    return { done, skipped };
  }

  /**
   * One card: 404 when the church has no such open card, 401 when the caller may not edit it. An operation that
   * runs the step's routes (`routes`: complete) has the subject's facts asked before its transaction.
   */
  const one = (path: string, body: z.ZodType | undefined, op: (req: FastifyRequest) => Op, routes = false, check?: (req: FastifyRequest) => Promise<void>) =>
    app.post(`${base}/:id/${path}`, { ...signedIn, schema: { params: IdParams, ...(body ? { body } : {}), response: { 200: Task } } }, async (req) => {
      if (check) await check(req);
      const [subject] = routes ? await rowsByIds(app.db, tasks, req.auth.churchId, [req.params.id]) : [];
      const facts = await subjectFacts(app.deps, req.auth.churchId, subject?.associatedWithType === 'person' ? [subject.associatedWithId] : []);
      return app.deps.queue.transaction(app.db, async (tx) => {
        const run = new CardRun(app.deps, tx, req.auth.churchId, req, facts);
        const [card] = await rowsByIds(tx, tasks, req.auth.churchId, [req.params.id]);
        if (!card || !card.workflowId) throw notFound('Card');
        if (!mayEdit(req, card)) throw unauthorized('Only holders of Plans.Edit and the card\'s assignee can change it');
        const { done } = await apply(req, tx, run, [card.id], op(req));
        if (!done[0]) throw notFound('Open card');
        return done[0];
      });
    });

  const complete = (routeId?: string | null): Op => (run, card) => run.complete(card, routeId);
  const move = (stepId: string): Op => async (run, card) => run.moveTo(card, await run.step(stepId, card.workflowId!), true);
  const reassign = (b: z.output<typeof ReassignBody>): Op => async (_run, card) => {
    Object.assign(card, { assignedToType: b.assignedToId ? (b.assignedToType ?? 'person') : null, assignedToId: b.assignedToId ?? null, assignedToLabel: b.assignedToId ? (b.assignedToLabel ?? null) : null });
  };
  const snooze = (days: number): Op => async (_run, card) => {
    card.snoozedUntil = days > 0 ? new Date(Date.now() + days * 86_400_000) : null;
  };

  one('complete', CompleteBody.optional(), (req) => complete((req.body as z.output<typeof CompleteBody> | undefined)?.routeId), true);
  one('moveStep', MoveStepBody, (req) => move((req.body as z.output<typeof MoveStepBody>).stepId));
  one('pin', PinBody.optional(), (req) => async (_run, card) => {
    card.pinnedAssignment = (req.body as z.output<typeof PinBody> | undefined)?.pinned !== false;
  });
  one('reassign', ReassignBody, (req) => reassign(req.body as z.output<typeof ReassignBody>), false, checkAssignee);
  one('snooze', SnoozeBody, (req) => snooze((req.body as z.output<typeof SnoozeBody>).days));
  // skip / sendBack: the next or previous step, placed by hand (no actions, no routes); at either end, unchanged.
  app.post(`${base}/:id/:action`, { ...signedIn, schema: { params: DirectionParams, response: { 200: Task } } }, (req) =>
    app.deps.queue.transaction(app.db, async (tx) => {
      const run = new CardRun(app.deps, tx, req.auth.churchId, req);
      const [card] = await rowsByIds(tx, tasks, req.auth.churchId, [req.params.id]);
      if (!card || !card.workflowId) throw notFound('Card');
      if (!mayEdit(req, card)) throw unauthorized('Only holders of Plans.Edit and the card\'s assignee can change it');
      const steps = await stepsOf(tx, req.auth.churchId, card.workflowId);
      const target = steps[steps.findIndex((s) => s.id === card.stepId) + (req.params.action === 'skip' ? 1 : -1)];
      if (!target || card.status !== 'Open') return card;
      const { done } = await apply(req, tx, run, [card.id], (r, c) => r.moveTo(c, target, true));
      return done[0] ?? card;
    }),
  );

  const bulk = <B extends z.ZodType<{ ids: string[] }>>(path: string, body: B, op: (b: z.output<B>) => Op, check?: (req: FastifyRequest) => Promise<void>) =>
    app.post(`${base}/bulk/${path}`, { ...signedIn, schema: { body, response: { 200: BulkAnswer } } }, async (req) => {
      if (check) await check(req);
      return app.deps.queue.transaction(app.db, async (tx) => {
        const input = req.body as z.output<B>;
        const { done, skipped } = await apply(req, tx, new CardRun(app.deps, tx, req.auth.churchId, req), [...new Set(input.ids)], op(input));
        return { updated: done.map((c) => c.id), skipped };
      });
    });
  bulk('complete', BulkBody, () => complete());
  bulk('moveStep', BulkMoveBody, (b) => move(b.stepId));
  bulk('reassign', BulkReassignBody, (b) => reassign(b), checkAssignee);
  bulk('snooze', BulkSnoozeBody, (b) => snooze(b.days));
}
