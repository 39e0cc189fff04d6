import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { badRequest, batchOf, checkBatch, crud, findRow, itemParam, notFound, saveRows, type ZodTypeProvider } from '@church/common';
import { eventExceptions, events } from '../../db/website';
import { EventException, EventExceptionSave } from '../../schemas/website';

const base = '/content/eventExceptions';
const edit = requires('Content.Edit');

/** `/content/eventExceptions`: dates taken out of recurring events (the occurrence's start). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  crud(app, { path: base, table: eventExceptions, item: EventException, save: EventExceptionSave, view: anyUser, edit, only: ['get', 'delete'] });

  app.post(base, { config: { access: edit }, schema: { body: batchOf(EventExceptionSave), response: { 200: z.array(EventException) } } }, async (req) => {
    const churchId = req.auth.churchId;
    await checkBatch(app.db, req, req.body, { references: { eventId: events } });
    req.body.forEach((item, i) => {
      if (!item.id && !item.eventId) throw badRequest(itemParam(req, i, 'eventId'), 'is required');
      if (!item.id && !item.exceptionDate) throw badRequest(itemParam(req, i, 'exceptionDate'), 'is required');
    });
    return app.db.transaction(async (tx) => {
      const out = [];
      for (const { id, ...fields } of req.body) {
        if (id) {
          if (!(await findRow(tx, eventExceptions, churchId, id))) throw notFound('Event exception');
          out.push(...(await saveRows(tx, eventExceptions, churchId, [{ ...fields, id }])));
        } else {
          out.push(...(await saveRows(tx, eventExceptions, churchId, [{ eventId: fields.eventId!, exceptionDate: fields.exceptionDate! }])));
        }
      }
      return out;
    });
  });
}
