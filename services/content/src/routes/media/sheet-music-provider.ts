import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { and, eq, lt } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { badRequest, type ZodTypeProvider } from '@church/common';
import { sheetMusicRequests, sheetMusicTokens } from '../../db/media';
import { mediaDeps } from '../../domain/media/deps';
import type { SheetMusicUser } from '../../providers/sheet-music';

const Ref = z.string().trim().min(1, 'is required').max(200);
const Keys = z.string().trim().max(200).optional();

/** `/content/sheetMusicProvider`: the catalog, and the user's library through their linked account (OAuth 1.0a). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const provider = () => mediaDeps(app).providers.sheetMusic;

  /** The caller's linked account, decrypted; undefined when they have none. */
  const userToken = async (req: FastifyRequest): Promise<SheetMusicUser | undefined> => {
    const [row] = await app.db.select().from(sheetMusicTokens).where(and(eq(sheetMusicTokens.churchId, req.auth.churchId), eq(sheetMusicTokens.userId, req.auth.id)));
    if (!row) return undefined;
    return { token: app.deps.secrets.decrypt(row.token), secret: app.deps.secrets.decrypt(row.secret) };
  };
  const requireToken = async (req: FastifyRequest) => {
    const token = await userToken(req);
    if (!token) throw badRequest('account', 'link a sheet-music provider account first (authUrl, then access)', 'query');
    return token;
  };

  app.get('/content/sheetMusicProvider/raw/:id', { config: { access: anyUser }, schema: { params: z.object({ id: Ref }) } }, async (req) => (await provider().raw(req.params.id)) ?? {});

  app.get('/content/sheetMusicProvider/hasAccount', { config: { access: anyUser } }, async (req) => ({ hasAccount: Boolean(await userToken(req)) }));

  app.get('/content/sheetMusicProvider/search', { config: { access: anyUser }, schema: { querystring: z.object({ q: Ref }) } }, async (req) => provider().search(req.query.q));

  app.get('/content/sheetMusicProvider/products/:id', { config: { access: anyUser }, schema: { params: z.object({ id: Ref }), querystring: z.object({ keys: Keys }) } }, async (req) =>
    provider().products(req.params.id, req.query.keys, await userToken(req)),
  );

  app.get('/content/sheetMusicProvider/arrangement/raw/:id', { config: { access: anyUser }, schema: { params: z.object({ id: Ref }), querystring: z.object({ keys: Keys }) } }, async (req) =>
    (await provider().arrangementRaw(req.params.id, req.query.keys, await requireToken(req))) ?? {},
  );

  app.get(
    '/content/sheetMusicProvider/download',
    { config: { access: anyUser }, schema: { querystring: z.object({ skus: Ref, keys: Keys, file_name: z.string().trim().max(200).optional() }) } },
    async (req) => ({ redirectUrl: await provider().download(req.query.skus, req.query.keys, req.query.file_name, await requireToken(req)) }),
  );

  app.get(
    '/content/sheetMusicProvider/authUrl',
    { config: { access: 'public' }, schema: { querystring: z.object({ returnUrl: z.url({ protocol: /^https?$/, message: 'must be an http(s) address' }).max(2000) }) } },
    async (req) => {
      const t = await provider().requestToken(req.query.returnUrl);
      // The request token's secret is kept (encrypted) for an hour, so `access` also works without `secret`.
      await app.db.delete(sheetMusicRequests).where(lt(sheetMusicRequests.createdAt, new Date(Date.now() - 3600_000)));
      await app.db.insert(sheetMusicRequests).values({ id: randomUUID(), token: t.token, secret: app.deps.secrets.encrypt(t.secret) }).onConflictDoNothing();
      return { authUrl: t.authUrl, oauthToken: t.token, oauthTokenSecret: t.secret };
    },
  );

  app.get(
    '/content/sheetMusicProvider/access',
    { config: { access: anyUser }, schema: { querystring: z.object({ verifier: Ref, token: Ref, secret: z.string().trim().max(500).optional() }) } },
    async (req) => {
      const { verifier, token } = req.query;
      let secret = req.query.secret;
      if (!secret) {
        const [pending] = await app.db.select().from(sheetMusicRequests).where(eq(sheetMusicRequests.token, token));
        if (!pending) throw badRequest('secret', 'is required (no pending authorization for this token)', 'query');
        secret = app.deps.secrets.decrypt(pending.secret);
      }
      const access = await provider().accessToken(token, secret, verifier);
      const values = { token: app.deps.secrets.encrypt(access.token), secret: app.deps.secrets.encrypt(access.secret) };
      await app.db
        .insert(sheetMusicTokens)
        .values({ id: randomUUID(), churchId: req.auth.churchId, userId: req.auth.id, ...values })
        .onConflictDoUpdate({ target: [sheetMusicTokens.churchId, sheetMusicTokens.userId], set: { ...values, updatedAt: new Date() } });
      await app.db.delete(sheetMusicRequests).where(eq(sheetMusicRequests.token, token));
      return { hasAccount: true };
    },
  );

  app.get('/content/sheetMusicProvider/library', { config: { access: anyUser } }, async (req) => provider().library(await requireToken(req)));
}
