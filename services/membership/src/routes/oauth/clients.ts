import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { IdParams, batchOf, conflict, notFound, type ZodTypeProvider } from '@church/common';
import { randomSecret, sha256 } from '../../domain/secrets';
import { deleteClientCascade, findClient, findClientByClientId, insertClient, listClients, updateClient, type OauthClientRow } from '../../repos/oauth';
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

  app.post(base, { config: { access: admin }, schema: { body: batchOf(ClientSave), response: { 200: z.array(SavedClient) } } }, async (req) =>
    app.db.transaction(async (tx) => {
      const out: Array<OauthClientRow & { clientSecret?: string }> = [];
      for (const item of req.body) {
        const values = { name: item.name, redirectUris: item.redirectUris, scopes: item.scopes, ...(item.clientId ? { clientId: item.clientId } : {}) };
        if (item.clientId) {
          const holder = await findClientByClientId(tx, item.clientId);
          if (holder && holder.id !== item.id) throw conflict('This clientId is taken', 'clientId');
        }
        if (item.id) {
          out.push(found(await updateClient(tx, item.id, values)));
          continue;
        }
        const clientSecret = randomSecret();
        const row = await insertClient(tx, {
          ...values,
          clientId: item.clientId ?? randomSecret(12),
          clientSecretHash: sha256(clientSecret),
          redirectUris: item.redirectUris ?? [],
          scopes: item.scopes ?? [],
        });
        out.push({ ...row, clientSecret });
      }
      return out;
    }),
  );

  app.delete(`${base}/:id`, { config: { access: admin }, schema: { params: IdParams, response: { 200: z.object({}) } } }, async (req) => {
    if (!(await app.db.transaction((tx) => deleteClientCascade(tx, req.params.id)))) throw notFound('Client');
    return {};
  });
}

function found<T>(row: T | undefined): T {
  if (!row) throw notFound('Client');
  return row;
}
