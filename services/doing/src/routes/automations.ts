import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { anyUser } from '@church/auth';
import { IdParams, assertReferences, badRequest, crud, itemParam, rowsByIds, type TenantTable, type ZodTypeProvider } from '@church/common';
import { actions, automations, conditions, conjunctions, workflowStepRoutes, workflowTriggers } from '../db/schema';
import { checkAutomations } from '../jobs/contracts';
import { deleteAutomationParts, partsOf } from '../repos/automations';
import { treeOf } from '../repos/workflows';
import { staffEditor } from './access';
import { CONDITION_REFERENCES, conditionValueIds, personOrGroup } from '../domain/references';
import { Action, ActionList, toAction, ActionSave, Automation, AutomationSave, CheckQueued, Condition, ConditionList, ConditionSave, Conjunction, ConjunctionList, ConjunctionSave } from '../schemas';

/** The options of the resource helper for one table (the parts share everything but their table, schemas and owners). */
type CrudOptions<T extends TenantTable, I extends z.ZodType, S extends z.ZodType> = Parameters<typeof crud<T, I, S>>[1];

/**
 * `/doing/automations`, `/doing/actions`, `/doing/conditions`, `/doing/conjunctions`. Read by anyone signed in
 * (spec); written by holders of Plans.Edit (issue 31: the church's staff work).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };

  // Public (spec): anyone may ask for a check, which only runs what the automations already say; one check
  // per minute at most, however often it is asked for.
  app.get('/doing/automations/check', { config: { access: 'public' }, schema: { response: { 200: CheckQueued } } }, async () => {
    await app.deps.queue.enqueue(checkAutomations, {}, { jobId: `check-${new Date().toISOString().slice(0, 16)}` });
    return { queued: true };
  });
  crud(app, {
    path: '/doing/automations',
    name: 'Automation',
    table: automations,
    item: Automation,
    save: AutomationSave,
    view: anyUser,
    edit: staffEditor,
    orderBy: automations.title,
    // an automation takes its actions, conditions, conjunctions and run keys with it
    beforeDelete: (row, req, tx) => deleteAutomationParts(tx, req.auth.churchId, row.id),
    changes: { entityType: 'automation' },
  });

  /** The parts of an automation: by id, batch save (its automation checked), delete. */
  const part = <T extends TenantTable, I extends z.ZodType, S extends z.ZodType>(
    base: string,
    name: string,
    table: T,
    item: I,
    save: S,
    // every owner named (or taken from the conjunction) must be the church's
    references: CrudOptions<T, I, S>['references'],
    toRow?: CrudOptions<T, I, S>['toRow'],
    toItem?: CrudOptions<T, I, S>['toItem'],
  ) => {
    crud(app, {
      path: base,
      name,
      table,
      item,
      save,
      view: anyUser,
      edit: staffEditor,
      only: ['get', 'save', 'delete'],
      references,
      toRow,
      toItem,
      changes: { entityType: name.toLowerCase() },
    });
  };

  const owners = { automationId: automations, triggerId: workflowTriggers, stepRouteId: workflowStepRoutes };
  // the task's assignee is a person or a group of the church (membership's)
  part('/doing/actions', 'Action', actions, Action, ActionSave, { automationId: automations }, async (input, req) => {
    const param = itemParam(req, indexIn(req, input), 'actionData');
    await assertReferences(app.deps, req.auth.churchId, [input.actionData], { assignedToId: personOrGroup('assignedToType') }, (_i, field) => `${param}.${field}`);
    return input;
  }, toAction);
  // A condition takes the owner of its conjunction; a conjunction the owner of its parent (B1Admin's workflow screens
  // send only `conjunctionId`). Sending another owner than the parent's is a 400.
  // what a condition's value names by its field (a group membership's groups, a campus, a household) is the church's
  part('/doing/conditions', 'Condition', conditions, Condition, ConditionSave, owners, async (input, req) => {
    await assertReferences(app.deps, req.auth.churchId, [conditionValueIds(input)], CONDITION_REFERENCES, (_i, field) => itemParam(req, indexIn(req, input), field));
    return withOwner(req, input, input.conjunctionId, 'conjunctionId');
  });
  part('/doing/conjunctions', 'Conjunction', conjunctions, Conjunction, ConjunctionSave, owners, (input, req) => {
    if (input.id && input.parentId === input.id) throw badRequest(itemParam(req, indexIn(req, input), 'parentId'), 'cannot be the conjunction itself');
    return withOwner(req, input, input.parentId, 'parentId');
  });
  // The parts of one automation, each from its own table.
  app.get('/doing/actions/automation/:id', { ...read, schema: { params: IdParams, response: { 200: ActionList } } }, async (req) => (await partsOf(app.db, actions, req.auth.churchId, req.params.id)).map(toAction));
  app.get('/doing/conditions/automation/:id', { ...read, schema: { params: IdParams, response: { 200: ConditionList } } }, (req) => partsOf(app.db, conditions, req.auth.churchId, req.params.id));
  app.get('/doing/conjunctions/automation/:id', { ...read, schema: { params: IdParams, response: { 200: ConjunctionList } } }, (req) => partsOf(app.db, conjunctions, req.auth.churchId, req.params.id));

  // The trees of workflow step routes (`personMatch`) and schedule triggers, as the workflow screens read them.
  const staffRead = { config: { access: staffEditor } };
  const treeOwners = [
    ['stepRoute', (id: string) => ({ stepRouteId: id })],
    ['trigger', (id: string) => ({ triggerId: id })],
  ] as const;
  for (const [owner, ownerOf] of treeOwners) {
    app.get(`/doing/conditions/${owner}/:id`, { ...staffRead, schema: { params: IdParams, response: { 200: ConditionList } } }, async (req) => (await treeOf(app.db, req.auth.churchId, ownerOf(req.params.id))).conds);
    app.get(`/doing/conjunctions/${owner}/:id`, { ...staffRead, schema: { params: IdParams, response: { 200: ConjunctionList } } }, async (req) => (await treeOf(app.db, req.auth.churchId, ownerOf(req.params.id))).conjs);
  }

  type Owned = { id?: string; automationId?: string | null; triggerId?: string | null; stepRouteId?: string | null };
  /** The row's owner: its parent conjunction's when it has one, else the one it names (exactly one on a new row). */
  async function withOwner<T extends Owned>(req: FastifyRequest, input: T, parentId: string | null | undefined, parentField: string) {
    const i = indexIn(req, input);
    const named = OWNERS.filter((f) => input[f]);
    if (parentId) {
      const [parent] = await rowsByIds(app.db, conjunctions, req.auth.churchId, [parentId]);
      if (!parent) throw badRequest(itemParam(req, i, parentField), `${parentField} is not a record of this church`);
      const differs = named.find((f) => input[f] !== parent[f]);
      if (differs) throw badRequest(itemParam(req, i, parentField), `belongs to another ${differs.replace(/Id$/, '').replace('stepRoute', 'step route')}`);
      return { ...input, ...Object.fromEntries(OWNERS.map((f) => [f, parent[f]])) };
    }
    if (named.length > 1) throw badRequest(itemParam(req, i, named[1]!), 'a tree has one owner: an automation, a trigger or a step route');
    if (!input.id && !named.length) throw badRequest(itemParam(req, i, 'automationId'), 'automationId is required');
    return named.length ? { ...input, ...Object.fromEntries(OWNERS.map((f) => [f, input[f] ?? null])) } : input;
  }
}

const OWNERS = ['automationId', 'triggerId', 'stepRouteId'] as const;
/** Where an item of a batch save stands in the body (crud hands `toRow` the body's own items). */
export const indexIn = (req: FastifyRequest, input: unknown) => Math.max(0, (req.body as unknown[]).indexOf(input));
