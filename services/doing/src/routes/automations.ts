import type { FastifyInstance } from 'fastify';
import { and, eq } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { IdParams, badRequest, batchOf, crud, itemParam, notFound, saveRows, type TenantTable, type ZodTypeProvider } from '@church/common';
import { actions, automationRuns, automations, conditions, conjunctions } from '../db/schema';
import { requireRef } from '../repos/refs';
import { checkAutomations } from '../jobs';
import { CONDITION_FIELDS, TODAY_PARTS } from '../domain/conditions';
import { Action, ActionSave, Automation, AutomationSave, Condition, ConditionSave, Conjunction, ConjunctionSave } from '../schemas';

/** `/doing/automations`, `/doing/actions`, `/doing/conditions`, `/doing/conjunctions`. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const read = { config: { access: anyUser } };

  // Public (spec): anyone may ask for a check, which only runs what the automations already say; one check
  // per minute at most, however often it is asked for.
  app.get('/doing/automations/check', { config: { access: 'public' }, schema: { response: { 200: z.object({ queued: z.boolean() }) } } }, async () => {
    await app.deps.queue.enqueue(checkAutomations, {}, { jobId: `check-${new Date().toISOString().slice(0, 16)}` });
    return { queued: true };
  });
  crud(app, { path: '/doing/automations', table: automations, item: Automation, save: AutomationSave, view: anyUser, edit: anyUser, only: ['list', 'get', 'save'], orderBy: automations.title });
  app.delete('/doing/automations/:id', { ...read, schema: { params: IdParams } }, (req) =>
    app.db.transaction(async (tx) => {
      const churchId = req.auth.churchId;
      const [gone] = await tx.delete(automations).where(and(eq(automations.churchId, churchId), eq(automations.id, req.params.id))).returning({ id: automations.id });
      if (!gone) throw notFound('Automation');
      for (const table of [actions, conditions, conjunctions, automationRuns]) await tx.delete(table).where(and(eq(table.churchId, churchId), eq(table.automationId, gone.id)));
      return {};
    }),
  );

  /** The parts of an automation: by id, by automation, batch save (its automation checked), delete. */
  const part = <I extends z.ZodType, S extends z.ZodType>(base: string, table: TenantTable & { automationId: PgColumn }, item: I, save: S, check?: (tx: Parameters<Parameters<typeof app.db.transaction>[0]>[0], churchId: string, row: z.output<S>, param: (f: string) => string) => Promise<void>) => {
    app.get(`${base}/automation/:id`, { ...read, schema: { params: IdParams, response: { 200: z.array(item) } } }, async (req) =>
      (await app.db.select().from(table).where(and(eq(table.churchId, req.auth.churchId), eq(table.automationId, req.params.id)))) as never,
    );
    app.post(base, { ...read, schema: { body: batchOf(save), response: { 200: z.array(item) } } }, (req) =>
      app.db.transaction(async (tx) => {
        const rows = req.body as Array<z.output<S> & { automationId: string }>;
        for (const [i, row] of rows.entries()) {
          await requireRef(tx, automations, req.auth.churchId, row.automationId, itemParam(req, i, 'automationId'), 'Automation');
          await check?.(tx, req.auth.churchId, row, (f) => itemParam(req, i, f));
        }
        return (await saveRows(tx, table, req.auth.churchId, rows)) as never;
      }),
    );
    crud(app, { path: base, table, item, save, view: anyUser, edit: anyUser, only: ['get', 'delete'] });
  };

  part('/doing/actions', actions, Action, ActionSave);
  part('/doing/conditions', conditions, Condition, ConditionSave, async (tx, churchId, row, param) => {
    if (!CONDITION_FIELDS.includes(row.field)) throw badRequest(param('field'), `must be one of ${CONDITION_FIELDS.join(', ')}`);
    if (row.field === 'today' && row.fieldData && !(TODAY_PARTS as readonly string[]).includes(row.fieldData)) throw badRequest(param('fieldData'), `must be one of ${TODAY_PARTS.join(', ')}`);
    if (row.conjunctionId) {
      const parent = await requireRef<{ automationId: string }>(tx, conjunctions, churchId, row.conjunctionId, param('conjunctionId'), 'Conjunction');
      if (parent.automationId !== row.automationId) throw badRequest(param('conjunctionId'), 'belongs to another automation');
    }
  });
  part('/doing/conjunctions', conjunctions, Conjunction, ConjunctionSave, async (tx, churchId, row, param) => {
    if (!row.parentId) return;
    if (row.parentId === row.id) throw badRequest(param('parentId'), 'cannot be the conjunction itself');
    const parent = await requireRef<{ automationId: string }>(tx, conjunctions, churchId, row.parentId, param('parentId'), 'Parent conjunction');
    if (parent.automationId !== row.automationId) throw badRequest(param('parentId'), 'belongs to another automation');
  });
}
