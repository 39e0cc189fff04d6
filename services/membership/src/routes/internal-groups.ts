import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Id, type ZodTypeProvider } from '@church/common';
import { toGroup } from '../domain/groups';
import { listGroups } from '../repos/groups';
import { groupRoster } from '../repos/roster';
import { GroupRecords } from './groups';

const Body = z.object({ churchId: Id, groupId: Id });
const Members = z.array(
  z.object({
    personId: z.string(),
    displayName: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    photo: z.string().nullable(),
    leader: z.boolean(),
  }),
);

/** Server-to-server: attendance asks for a group's people (session downloads) and the church's groups (service times). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  // A snapshot per group: the caller keeps the answer and revalidates it with If-None-Match (304 while the
  // church's people, groups and members are unchanged).
  app.post('/membership/internal/groups/members', { config: { access: 'internal' }, schema: { body: Body, response: { 200: Members } } }, (req, reply) =>
    app.deps.snapshots.send(req, reply, req.body.churchId, req.body.groupId, () => groupRoster(app.db, req.body.churchId, req.body.groupId)),
  );
  // The church's live groups, as `GET /membership/groups` answers them, kept and revalidated the same way.
  app.post(
    '/membership/internal/groups/list',
    { config: { access: 'internal' }, schema: { body: z.object({ churchId: Id }), response: { 200: GroupRecords } } },
    (req, reply) => app.deps.snapshots.send(req, reply, req.body.churchId, 'all', async () => (await listGroups(app.db, req.body.churchId)).map(toGroup)),
  );
}
