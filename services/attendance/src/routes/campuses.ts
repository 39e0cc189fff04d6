import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Id, crud, type ZodTypeProvider } from '@church/common';
import { campuses } from '../db/schema';
import { campusNames } from '../repos/places';
import { Campus, CampusSave, PublicCampus } from '../schemas';

/**
 * Where campuses are served. Attendance owns the campus rows; the spec names them under `/attendance/campuses`,
 * and the current apps manage them under `/membership/campuses` (the gateway sends that path here). Both paths
 * are the same routes on the same rows, with the spec's edit permission.
 */
export const CAMPUS_PATHS = ['/attendance/campuses', '/membership/campuses'] as const;

const edit = requires('Services.Edit');

/** The standard set on each path (removal is a soft delete: services keep their campus), and the public names. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  for (const path of CAMPUS_PATHS) {
    // Anonymous: the member site's campus filter (B1App's groups browser) reads the names of a church's live campuses.
    app.get(
      `${path}/public/:churchId`,
      { config: { access: 'public' }, schema: { params: z.object({ churchId: Id }), response: { 200: z.array(PublicCampus) } } },
      (req) => campusNames(app.db, req.params.churchId),
    );
    crud(app, { path, name: 'Campus', table: campuses, item: Campus, save: CampusSave, view: anyUser, edit, orderBy: campuses.name, changes: { entityType: 'campus' } });
  }
}
