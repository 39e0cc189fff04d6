import type { FastifyInstance } from 'fastify';
import roles from './roles';
import members from './members';
import permissions from './permissions';

/** Roles, role members, role permissions and the permission list. */
export default async function routes(app: FastifyInstance): Promise<void> {
  await app.register(roles);
  await app.register(members);
  await app.register(permissions);
}
