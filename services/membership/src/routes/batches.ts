import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission, requires } from '@church/auth';
import { IdParams, actorOf, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { undoBatch } from '../domain/batches';
import { findBatch, itemsOf, listBatches, type BatchRow } from '../repos/batches';
import { Batch, BatchResults, UndoAnswer } from '../schemas/batches';

const BASE = '/membership/batches';
const toBatch = ({ createdAt, ...b }: BatchRow) => ({ ...b, created: createdAt });

/**
 * Bulk changes of people (B1Admin's settings → batches; Settings.Edit, or the person who made the batch): what
 * each changed, and undo within 30 days, which keeps any later change of a person.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  /** The batch, when the caller may see it: its maker or a Settings.Edit holder (another church's is a 404). */
  const visible = async (req: FastifyRequest, id: string) => {
    const batch = await findBatch(app.db, req.auth.churchId, id);
    if (!batch) throw notFound('Batch');
    if (batch.userId !== req.auth.id && !hasPermission(req.auth, 'Settings.Edit')) throw unauthorized('Missing permission: Settings.Edit');
    return batch;
  };

  app.get(BASE, { config: { access: requires('Settings.Edit') }, schema: { summary: 'The church’s bulk changes', response: { 200: z.array(Batch) } } }, async (req) => (await listBatches(app.db, req.auth.churchId)).map(toBatch));

  app.get(`${BASE}/:id/results`, { config: { access: anyUser }, schema: { summary: 'What a bulk change changed', params: IdParams, response: { 200: BatchResults } } }, async (req) => {
    const batch = await visible(req, req.params.id);
    const items = await itemsOf(app.db, req.auth.churchId, batch.id);
    return { batch: toBatch(batch), rows: items.map((i) => ({ id: i.id, action: `${i.entityType}_${i.action}`, entityType: i.entityType, entityId: i.entityId, created: i.createdAt })) };
  });

  // Undo changes people again: the caller must hold People.Edit now (as the bulk change itself needed), besides
  // being its maker or a Settings.Edit holder; a maker who has lost People.Edit since cannot undo.
  app.post(`${BASE}/:id/undo`, { config: { access: requires('People.Edit') }, schema: { summary: 'Undo a bulk change', params: IdParams, response: { 200: UndoAnswer } } }, async (req) => {
    await visible(req, req.params.id);
    const result = await undoBatch(app.db, app.deps, actorOf(req), req.params.id);
    if (!result) throw notFound('Batch');
    return result;
  });
}
