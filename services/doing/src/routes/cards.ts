import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { IdParams, actorOf, notFound, type ZodTypeProvider } from '@church/common';
import { membershipClient } from '../clients/membership';
import { staffEditor } from './access';
import { addToWorkflow, bulkAddToWorkflow, cardOps, changeCard, changeCards, checkAssignee, stepCard, type CardOp } from '../domain/cards';
import { boardFrame, cardsOfPerson, openCards } from '../repos/workflows';
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

/**
 * Workflow cards (tasks with a `workflowId`): the board, "my cards", adding people to a workflow, and the card
 * operations (domain/cards.ts). Adding and the board: Plans.Edit (`staffEditor`). A card's operations: Plans.Edit,
 * or the person the card is assigned to (declared `anyUser`, checked per card: another church's card is a 404,
 * someone else's a 401; the bulk forms skip such cards and say which).
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

  app.post(`${base}/addToWorkflow`, { ...staff, schema: { body: AddToWorkflowBody, response: { 200: Task } } }, (req) => addToWorkflow(app.deps, actorOf(req), req.body));
  app.post(`${base}/bulkAddToWorkflow`, { ...staff, schema: { body: BulkAddBody, response: { 200: z.array(Task) } } }, (req) => bulkAddToWorkflow(app.deps, actorOf(req), req.body));

  /** One card's operation (`routes`: it runs the step's routes); `check` runs first, before any transaction. */
  const one = <B extends z.ZodType>(path: string, body: B, op: (b: z.output<B>) => CardOp, routes = false, check?: (req: FastifyRequest, b: z.output<B>) => Promise<void>) =>
    app.post(`${base}/:id/${path}`, { ...signedIn, schema: { params: IdParams, body, response: { 200: Task } } }, async (req) => {
      const input = req.body as z.output<B>;
      if (check) await check(req, input);
      return changeCard(app.deps, actorOf(req), req.params.id, op(input), routes);
    });
  const assignee = (req: FastifyRequest, b: z.output<typeof ReassignBody>) => checkAssignee(app.deps, actorOf(req), b);

  one('complete', CompleteBody.optional(), (b) => cardOps.complete(b?.routeId), true);
  one('moveStep', MoveStepBody, (b) => cardOps.move(b.stepId));
  one('pin', PinBody.optional(), (b) => cardOps.pin(b?.pinned));
  one('reassign', ReassignBody, (b) => cardOps.reassign(b), false, assignee);
  one('snooze', SnoozeBody, (b) => cardOps.snooze(b.days));
  // skip / sendBack: the next or previous step, placed by hand (no actions, no routes); at either end, unchanged.
  app.post(`${base}/:id/:action`, { ...signedIn, schema: { params: DirectionParams, response: { 200: Task } } }, (req) => stepCard(app.deps, actorOf(req), req.params.id, req.params.action));

  const bulk = <B extends z.ZodType<{ ids: string[] }>>(path: string, body: B, op: (b: z.output<B>) => CardOp, check?: (req: FastifyRequest, b: z.output<B>) => Promise<void>) =>
    app.post(`${base}/bulk/${path}`, { ...signedIn, schema: { body, response: { 200: BulkAnswer } } }, async (req) => {
      const input = req.body as z.output<B>;
      if (check) await check(req, input);
      return changeCards(app.deps, actorOf(req), input.ids, op(input));
    });
  bulk('complete', BulkBody, () => cardOps.complete());
  bulk('moveStep', BulkMoveBody, (b) => cardOps.move(b.stepId));
  bulk('reassign', BulkReassignBody, (b) => cardOps.reassign(b), assignee);
  bulk('snooze', BulkSnoozeBody, (b) => cardOps.snooze(b.days));
}
