import type { FastifyInstance } from 'fastify';
import { membershipInternal as contract, type ZodTypeProvider } from '@church/common';
import { toGroup } from '../domain/groups';
import { listGroups } from '../repos/groups';
import { groupRoster } from '../repos/roster';
import { GroupRecords } from '../schemas/groups';

/** Server-to-server: attendance asks for a group's people (session downloads) and the church's groups (service times). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  // A snapshot per group: the caller keeps the answer and revalidates it with If-None-Match (304 while the
  // church's people, groups and members are unchanged).
  app.post(contract.groupMembers.path, { config: { access: 'internal' }, schema: { body: contract.groupMembers.body, response: { 200: contract.groupMembers.answer } } }, (req, reply) =>
    app.deps.snapshots.send(req, reply, req.body.churchId, req.body.groupId, () => groupRoster(app.db, req.body.churchId, req.body.groupId)),
  );
  // The church's live groups, as `GET /membership/groups` answers them, kept and revalidated the same way. The
  // contract's answer names the fields other modules read (`id`, `name`) and lets the rest through; the whole
  // record is serialized by the groups list's own exact schema, which satisfies it.
  app.post(
    contract.groupsList.path,
    { config: { access: 'internal' }, schema: { body: contract.groupsList.body, response: { 200: GroupRecords } } },
    (req, reply) => app.deps.snapshots.send(req, reply, req.body.churchId, 'all', async () => (await listGroups(app.db, req.body.churchId)).map(toGroup)),
  );
}
