import type { FastifyInstance } from 'fastify';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { IdParams, badRequest, crud, itemParam, rowsByIds, type TenantTable, type ZodTypeProvider } from '@church/common';
import { actions, automations, conditions, conjunctions } from '../db/schema';
import { checkAutomations } from '../jobs';
import { deleteAutomationParts, partsOf } from '../repos/automations';
import { staffEditor } from '../domain/ministry-access';
import { Action, ActionSave, Automation, AutomationSave, Condition, ConditionSave, Conjunction, ConjunctionSave } from '../schemas';

/**
 * `/doing/automations`, `/doing/actions`, `/doing/conditions`, `/doing/conjunctions`. Read by anyone signed in
 * (spec); written by holders of Plans.Edit (issue 31: the church's staff work).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };

  // Public (spec): anyone may ask for a check, which only runs what the automations already say; one check
  // per minute at most, however often it is asked for.
  app.get('/doing/automations/check', { config: { access: 'public' }, schema: { response: { 200: z.object({ queued: z.boolean() }) } } }, async () => {
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

  /** The parts of an automation: by id, by automation, batch save (its automation checked), delete. */
  const part = <T extends TenantTable & { automationId: PgColumn }, I extends z.ZodType, S extends z.ZodType>(
    base: string,
    name: string,
    table: T,
    item: I,
    save: S,
    afterSave?: Parameters<typeof crud<T, I, S>>[1]['afterSave'],
  ) => {
    app.get(`${base}/automation/:id`, { ...read, schema: { params: IdParams, response: { 200: z.array(item) } } }, (req) => partsOf(app.db, table, req.auth.churchId, req.params.id) as never);
    crud(app, { path: base, name, table, item, save, view: anyUser, edit: staffEditor, only: ['get', 'save', 'delete'], references: { automationId: automations } as never, afterSave, changes: { entityType: name.toLowerCase() } });
  };

  part('/doing/actions', 'Action', actions, Action, ActionSave);
  // A condition's conjunction, and a conjunction's parent, must be of the same automation.
  part('/doing/conditions', 'Condition', conditions, Condition, ConditionSave, async (rows, req, tx) => {
    const parents = new Map((await rowsByIds(tx, conjunctions, req.auth.churchId, rows.flatMap((r) => (r.conjunctionId ? [r.conjunctionId] : [])))).map((j) => [j.id, j]));
    for (const [i, row] of rows.entries()) {
      if (!row.conjunctionId) continue;
      const parent = parents.get(row.conjunctionId);
      if (!parent) throw badRequest(itemParam(req, i, 'conjunctionId'), 'Conjunction not found');
      if (parent.automationId !== row.automationId) throw badRequest(itemParam(req, i, 'conjunctionId'), 'belongs to another automation');
    }
  });
  part('/doing/conjunctions', 'Conjunction', conjunctions, Conjunction, ConjunctionSave, async (rows, req, tx) => {
    const parents = new Map((await rowsByIds(tx, conjunctions, req.auth.churchId, rows.flatMap((r) => (r.parentId ? [r.parentId] : [])))).map((j) => [j.id, j]));
    for (const [i, row] of rows.entries()) {
      if (!row.parentId) continue;
      if (row.parentId === row.id) throw badRequest(itemParam(req, i, 'parentId'), 'cannot be the conjunction itself');
      const parent = parents.get(row.parentId);
      if (!parent) throw badRequest(itemParam(req, i, 'parentId'), 'Parent conjunction not found');
      if (parent.automationId !== row.automationId) throw badRequest(itemParam(req, i, 'parentId'), 'belongs to another automation');
    }
  });
}
