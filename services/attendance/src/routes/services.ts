import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { IdParams, batchOf, deleteRow, itemParam, notFound, saveRows, type ZodTypeProvider } from '@church/common';
import { services } from '../db/schema';
import { listServices, requireCampus } from '../repos/places';
import { QueryId, Service, ServiceSave } from '../schemas';

const edit = requires('Services.Edit');

/** `/attendance/services`: services with their campus; removal is a soft delete. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get('/attendance/services', { config: { access: anyUser }, schema: { response: { 200: z.array(Service) } } }, (req) =>
    listServices(app.db, req.auth.churchId),
  );

  app.get(
    '/attendance/services/search',
    { config: { access: anyUser }, schema: { querystring: z.object({ campusId: QueryId }), response: { 200: z.array(Service) } } },
    (req) => listServices(app.db, req.auth.churchId, { campusId: req.query.campusId }),
  );

  app.get('/attendance/services/:id', { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Service } } }, async (req) => {
    const [row] = await listServices(app.db, req.auth.churchId, { id: req.params.id });
    if (!row) throw notFound('Service');
    return row;
  });

  app.post('/attendance/services', { config: { access: edit }, schema: { body: batchOf(ServiceSave), response: { 200: z.array(Service) } } }, (req) =>
    app.db.transaction(async (tx) => {
      const churchId = req.auth.churchId;
      for (const [i, item] of req.body.entries()) if (item.campusId) await requireCampus(tx, churchId, item.campusId, itemParam(req, i, 'campusId'));
      const saved = await saveRows(tx, services, churchId, req.body);
      return saved as Array<z.output<typeof Service>>;
    }),
  );

  app.delete('/attendance/services/:id', { config: { access: edit }, schema: { params: IdParams } }, async (req) => {
    await deleteRow(app.db, services, req.auth.churchId, req.params.id);
    return {};
  });
}
