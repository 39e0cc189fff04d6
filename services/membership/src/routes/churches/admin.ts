import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { IdParams, actorOf, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { deleteAbandoned } from '../../domain/churches/setup';
import { audit } from '../../domain/audit';
import { clock } from '../../domain/clock';
import { LoginResponse, loginResponse } from '../../domain/login';
import { findChurch, searchChurches, updateChurch, type ChurchRow } from '../../repos/churches';
import { findUserById } from '../../repos/users';
import { AdminChurch } from '../../schemas/churches';

/** Server-admin tools over every church. */
export default async function routes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/churches';
  const admin = requires('Server.Admin');

  // A token for the church with every permission, for support work; the admin's own account signs it.
  app.get(`${base}/:id/impersonate`, { config: { access: admin }, schema: { params: IdParams, response: { 200: LoginResponse } } }, async (req) => {
    const church = await findChurch(app.db, req.params.id);
    if (!church) throw notFound('Church');
    const user = await findUserById(app.db, req.auth.id);
    if (!user) throw unauthorized('User no longer exists');
    const response = await loginResponse(app.db, app.deps, user, { impersonate: church });
    // The church's own audit log shows that a server admin entered it with every permission.
    await audit(app.db, actorOf(req), church.id, { category: 'login', action: 'impersonate_church', entityType: 'church', entityId: church.id, details: { adminEmail: user.email } });
    return response;
  });

  // B1Admin's churches tab (serverAdmin/components/ChurchesTab.tsx) shows `registrationDate`: when the church was made.
  const toAdminChurch = (row: ChurchRow) => ({ ...row, registrationDate: row.createdAt });

  app.get(
    `${base}/all`,
    { config: { access: admin }, schema: { querystring: z.object({ term: z.string().trim().max(100).default('') }), response: { 200: z.array(AdminChurch) } } },
    async (req) => (await searchChurches(app.db, req.query.term, { includeArchived: true, limit: 500 })).map(toAdminChurch),
  );

  // `{archived}` (what the churches tab sends) archives or restores; without it the call toggles.
  app.post(
    `${base}/:id/archive`,
    { config: { access: admin }, schema: { params: IdParams, body: z.object({ archived: z.boolean().optional() }).nullish(), response: { 200: AdminChurch } } },
    async (req) => {
      const church = await findChurch(app.db, req.params.id);
      if (!church) throw notFound('Church');
      const archive = req.body?.archived ?? !church.archivedDate;
      const archivedDate = archive ? (church.archivedDate ?? clock.now()) : null;
      return toAdminChurch((await updateChurch(app.db, church.id, { archivedDate }))!);
    },
  );

  app.delete(`${base}/deleteAbandoned`, { config: { access: admin }, schema: { response: { 200: z.object({ deletedChurchIds: z.array(z.string()) }) } } }, async () => ({
    deletedChurchIds: await deleteAbandoned(app.db),
  }));
}
