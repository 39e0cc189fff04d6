import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { IdParams, crud, notFound, type ZodTypeProvider } from '@church/common';
import { campuses, services } from '../db/schema';
import { listServices } from '../repos/places';
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

  // Saves check each campus in the caller's church; removal is a soft delete.
  crud(app, { path: '/attendance/services', table: services, item: Service, save: ServiceSave, view: anyUser, edit, only: ['save', 'delete'], references: { campusId: campuses } });
}
