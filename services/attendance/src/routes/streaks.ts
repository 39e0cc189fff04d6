import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Id, type ZodTypeProvider } from '@church/common';
import { ownAttendanceOrViewer } from '../domain/access';
import { streaksOf } from '../domain/streaks';
import { attendedWeeks } from '../repos/records';
import { Streaks } from '../schemas';

/** `/attendance/streaks`: consecutive Sunday-start weeks with at least one visit; a person's own, or anyone's for staff. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/attendance/streaks/person/:personId',
    { config: { access: ownAttendanceOrViewer }, schema: { params: z.object({ personId: Id }), response: { 200: Streaks } } },
    async (req) => ({ personId: req.params.personId, ...streaksOf(await attendedWeeks(app.db, req.auth.churchId, req.params.personId)) }),
  );
}
