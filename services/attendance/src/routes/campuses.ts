import type { FastifyInstance } from 'fastify';
import { anyUser, requires } from '@church/auth';
import { crud, type ZodTypeProvider } from '@church/common';
import { campuses } from '../db/schema';
import { Campus, CampusSave } from '../schemas';

/** `/attendance/campuses`: the standard set; removal is a soft delete (services keep their campus). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  crud(app, {
    path: '/attendance/campuses',
    table: campuses,
    item: Campus,
    save: CampusSave,
    view: anyUser,
    edit: requires('Services.Edit'),
    orderBy: campuses.name,
  });
}
