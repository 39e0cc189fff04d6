import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { badRequest, DAY_MS, Empty, IdParams, notFound, reportChanges, unauthorized, type ZodTypeProvider } from '@church/common';
import { membershipDeps } from '../deps';
import { KEY_SCOPES, KEY_SCOPE_NAMES, exchangeApiKey, newApiKey } from '../domain/api-keys';
import { clock } from '../domain/clock';
import { parseScopes } from '../domain/oauth-scopes';
import { announce, revokeTokens } from '../domain/revocations';
import { deleteApiKey, insertApiKey, listApiKeys, type ApiKeyRow } from '../repos/api-keys';
import { ApiKeyCreate, ApiKeyOut, ScopeCatalog, TokenAnswer, TokenRequest } from '../schemas/api-keys';

const BASE = '/membership/apiKeys';
const editSettings = { access: requires('Settings.Edit') };

const toKey = (k: ApiKeyRow, key?: string) => ({ ...k, scopes: k.scopes.join(' '), ...(key ? { key } : {}) });
const audited = (k: ApiKeyRow) => ({ name: k.name, prefix: k.prefix, scopes: k.scopes, userId: k.userId, expiresAt: k.expiresAt });

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
    const { churchId, id: userId, personId, scope } = req.auth;
    // A key made with a scoped token (another key, an OAuth client) could outlive what made it: only people make keys.
    if (scope !== undefined) throw unauthorized('API keys are made by a signed-in person, not with a scoped token');
    const scopes = parseScopes(req.body.scopes);
    if (!scopes.length) throw badRequest('scopes', 'choose at least one scope');
    const unknown = scopes.filter((s) => !KEY_SCOPE_NAMES.has(s));
    if (unknown.length) throw badRequest('scopes', `unknown scope(s): ${unknown.join(', ')}`);
    const given = req.body.expiresAt;
    // A date alone is the last day the key works (UTC); an instant is when it stops.
    const expiresAt = given ? (given.getUTCHours() + given.getUTCMinutes() + given.getUTCSeconds() === 0 ? new Date(given.getTime() + DAY_MS) : given) : null;
    if (expiresAt && expiresAt <= clock.now()) throw badRequest('expiresAt', 'must be in the future');
    const made = newApiKey();
    const saved = await app.db.transaction(async (tx) => {
      const row = await insertApiKey(tx, { id: randomUUID(), churchId, userId, personId, name: req.body.name, prefix: made.prefix, keyHash: made.keyHash, scopes, expiresAt });
      await reportChanges(deps, [{ churchId, entityType: 'apiKey', entityId: row.id, action: 'created', after: audited(row) }], { req, tx });
      return row;
    });
    return toKey(saved, made.key);
  });

  app.delete(`${BASE}/:id`, { config: editSettings, schema: { summary: 'Revoke an API key and every token minted from it', params: IdParams, response: { 200: Empty } } }, async (req) => {
    const { churchId } = req.auth;
    const stamps = await app.db.transaction(async (tx) => {
      const gone = await deleteApiKey(tx, churchId, req.params.id);
      if (!gone) throw notFound('API key');
      await reportChanges(deps, [{ churchId, entityType: 'apiKey', entityId: gone.id, action: 'destroyed', before: audited(gone) }], { req, tx });
      return revokeTokens(tx, [{ userId: gone.id }]);
    });
    await announce(app.deps, stamps);
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
