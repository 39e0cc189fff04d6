import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, type Claims } from '@church/auth';
import { badRequest, batchOf, type DbOrTx, type ZodTypeProvider } from '@church/common';
import { DEFAULT_PREFERENCES } from '../domain/notify';
import { ensurePreferences, updatePreferences } from '../repos/notifications';
import { NotificationPreferences, SavePreferences } from '../schemas/notifications';

const base = '/messaging/notificationpreferences';

/** The caller's own preferences, written with the defaults on first read. */
function mine(db: DbOrTx, auth: Claims) {
  if (!auth.personId) throw badRequest('personId', 'the token has no person', 'header');
  return ensurePreferences(db, auth.churchId, auth.personId, DEFAULT_PREFERENCES);
}

/** `/messaging/notificationpreferences`: always the caller's own. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(`${base}/my`, { config: { access: anyUser }, schema: { response: { 200: NotificationPreferences } } }, async (req) => mine(app.db, req.auth));

  app.post(base, { config: { access: anyUser }, schema: { body: batchOf(SavePreferences), response: { 200: z.array(NotificationPreferences) } } }, async (req) =>
    app.db.transaction(async (tx) => {
      const out = [];
      for (const item of req.body) {
        if (item.personId && item.personId !== req.auth.personId) throw badRequest('personId', 'preferences are saved for your own person only');
        const row = await mine(tx, req.auth);
        // what the item carries changes; what it leaves out stays
        const { id: _id, personId: _person, ...given } = item;
        const changes = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
        out.push(Object.keys(changes).length ? await updatePreferences(tx, req.auth.churchId, row.id, changes) : row);
      }
      return out;
    }),
  );
}
