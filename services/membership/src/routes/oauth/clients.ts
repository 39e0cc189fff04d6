import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { IdParams, batchOf, notFound, type ZodTypeProvider } from '@church/common';
import { saveClients } from '../../domain/oauth/grants';
import { deleteClientCascade, findClient, findClientByClientId, listClients } from '../../repos/oauth';
import { ClientSave, ClientOut, SavedClient, PublicClient } from '../../schemas/oauth/clients';



export default async function routes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/oauth/clients';
  const admin = requires('Server.Admin');

  app.get(base, { config: { access: admin }, schema: { response: { 200: z.array(ClientOut) } } }, async () => listClients(app.db));

  app.get(`${base}/:id`, { config: { access: admin }, schema: { params: IdParams, response: { 200: ClientOut } } }, async (req) => found(await findClient(app.db, req.params.id)));

  app.get(
    `${base}/clientId/:clientId`,
    { config: { access: anyUser }, schema: { params: z.object({ clientId: z.string().min(1).max(100) }), response: { 200: PublicClient } } },
    async (req) => found(await findClientByClientId(app.db, req.params.clientId)),
  );

  app.post(base, { config: { access: admin }, schema: { body: batchOf(ClientSave), response: { 200: z.array(SavedClient) } } }, (req) => saveClients(app.db, req.body));

  app.delete(`${base}/:id`, { config: { access: admin }, schema: { params: IdParams, response: { 200: z.object({}) } } }, async (req) => {
    if (!(await app.db.transaction((tx) => deleteClientCascade(tx, req.params.id)))) throw notFound('Client');
    return {};
  });
}

function found<T>(row: T | undefined): T {
  if (!row) throw notFound('Client');
  return row;
}
