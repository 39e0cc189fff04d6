import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { actorOf, badRequest, Empty, IdParams, unauthorized, type ZodTypeProvider } from '@church/common';
import { membershipDeps } from '../deps';
import { KEY_SCOPES, createApiKey, exchangeApiKey, revokeApiKey } from '../domain/api-keys';
import { listApiKeys, type ApiKeyRow } from '../repos/api-keys';
import { ApiKeyCreate, ApiKeyOut, ScopeCatalog, TokenAnswer, TokenRequest } from '../schemas/api-keys';

const BASE = '/membership/apiKeys';
const editSettings = { access: requires('Settings.Edit') };

const toKey = (k: ApiKeyRow, key?: string) => ({ ...k, scopes: k.scopes.join(' '), ...(key ? { key } : {}) });

/**
 * API keys (B1Admin's settings → developer → API keys; Settings.Edit): a key acts for the user who made it, in the
 * church, within its scopes. It is shown once, stored as sha256, and exchanged at `POST /apiKeys/token` for a
 * short-lived bearer token every service accepts; deleting it refuses those tokens at once (a revocation stamp).
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = membershipDeps(app);

  app.get(`${BASE}/scopes`, { config: editSettings, schema: { summary: 'The scopes an API key may carry', response: { 200: ScopeCatalog } } }, async () => ({ scopes: KEY_SCOPES.map((s) => s.name), catalog: KEY_SCOPES }));

  app.get(BASE, { config: editSettings, schema: { summary: 'List the church’s API keys', response: { 200: z.array(ApiKeyOut) } } }, async (req) => (await listApiKeys(app.db, req.auth.churchId)).map((k) => toKey(k)));

  app.post(BASE, { config: editSettings, schema: { summary: 'Create an API key (shown once)', body: ApiKeyCreate, response: { 200: ApiKeyOut } } }, async (req) => {
    const { row, key } = await createApiKey(deps, actorOf(req), req.body);
    return toKey(row, key);
  });

  app.delete(`${BASE}/:id`, { config: editSettings, schema: { summary: 'Revoke an API key and every token minted from it', params: IdParams, response: { 200: Empty } } }, async (req) => {
    await revokeApiKey(deps, actorOf(req), req.params.id);
    return {};
  });

  // The exchange an integration makes: its key for a bearer token of every service (public: the key is the proof).
  // The body is optional (the key may come as the bearer header alone), so it is read here rather than required.
  app.post(`${BASE}/token`, { config: { access: 'public' }, schema: { summary: 'Exchange an API key for a short-lived bearer token', response: { 200: TokenAnswer } } }, async (req) => {
    const body = TokenRequest.safeParse(req.body ?? undefined);
    if (!body.success) throw badRequest('key', 'key must be the API key as text');
    const header = req.headers.authorization;
    const presented = body.data?.key ?? (header && /^bearer cak_/i.test(header) ? header.slice(7).trim() : undefined);
    if (!presented) throw unauthorized('Send the API key as {key} or as Authorization: Bearer cak_…');
    return exchangeApiKey(deps, presented);
  });
}
