import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { IdParams, batchOf, conflict, notFound, type ZodTypeProvider } from '@church/common';
import { parseScopes, unknownScopes } from '../../domain/oauth-scopes';
import { randomSecret, sha256 } from '../../domain/secrets';
import { deleteClientCascade, findClient, findClientByClientId, insertClient, listClients, updateClient, type OauthClientRow } from '../../repos/oauth';

/** A list sent as an array or as one comma- or space-separated string. */
const list = <T extends z.ZodType<string, string>>(item: T) =>
  z
    .union([z.array(z.string()), z.string()])
    .transform((v) => (Array.isArray(v) ? v : v.split(/[\s,]+/)).map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(item).max(50));

const RedirectUri = z.url({ message: 'must be an absolute address' });
const Scopes = list(z.string()).refine((s) => unknownScopes(parseScopes(s)).length === 0, { message: 'unknown scope' });

const ClientSave = z.object({
  id: z.uuid().optional(),
  name: z.string().trim().min(1).max(200),
  clientId: z
    .string()
    .regex(/^[A-Za-z0-9._-]{3,100}$/, 'letters, digits, . _ - (3 to 100)')
    .optional(),
  redirectUris: list(RedirectUri).optional(),
  scopes: Scopes.optional(),
});

/** A client as admins see it; the secret is stored hashed and never read back. */
const ClientOut = z.object({
  id: z.string(),
  name: z.string(),
  clientId: z.string(),
  redirectUris: z.array(z.string()),
  scopes: z.array(z.string()),
  createdAt: z.date(),
});
/** Only the create response carries the secret, once. */
const SavedClient = ClientOut.extend({ clientSecret: z.string().optional() });
const PublicClient = ClientOut.omit({ createdAt: true });

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
