import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { crud, type ZodTypeProvider } from '@church/common';
import { campuses, services } from '../db/schema';
import { listServices } from '../repos/places';
import { QueryId, Service, ServiceSave } from '../schemas';

const edit = requires('Services.Edit');

/** `/attendance/services`: services with their campus; removal is a soft delete. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/attendance/services/search',
    { config: { access: anyUser }, schema: { querystring: z.object({ campusId: QueryId }), response: { 200: z.array(Service) } } },
    (req) => listServices(app.db, req.auth.churchId, { campusId: req.query.campusId }),
  );

  // The standard set, read with each service's campus; saves check each campus is the caller's church's, and
  // removal is a soft delete.
  crud(app, {
    path: '/attendance/services',
    name: 'Service',
    table: services,
    item: Service,
    save: ServiceSave,
    view: anyUser,
    edit,
    references: { campusId: campuses },
    changes: { entityType: 'service' },
    readers: {
      list: (req) => listServices(app.db, req.auth.churchId),
      get: async (req, id) => (await listServices(app.db, req.auth.churchId, { id }))[0],
    },
  });
}
