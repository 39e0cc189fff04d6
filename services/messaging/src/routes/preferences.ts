import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, type Claims } from '@church/auth';
import { Id, badRequest, batchOf, type ZodTypeProvider, type DbOrTx } from '@church/common';
import { notificationPreferences } from '../db/schema';
import { DEFAULT_PREFERENCES } from '../domain/notify';

const SavePreferences = z.object({
  id: Id.optional(),
  personId: Id.optional(),
  allowPush: z.boolean().optional(),
  emailFrequency: z.enum(['never', 'individual', 'daily']).optional(),
});

async function mine(db: DbOrTx, auth: Claims) {
  if (!auth.personId) throw badRequest('personId', 'the token has no person', 'header');
  await db
    .insert(notificationPreferences)
    .values({ id: randomUUID(), churchId: auth.churchId, personId: auth.personId, ...DEFAULT_PREFERENCES })
    .onConflictDoNothing();
  const [row] = await db
    .select()
    .from(notificationPreferences)
    .where(and(eq(notificationPreferences.churchId, auth.churchId), eq(notificationPreferences.personId, auth.personId)));
  return row!;
}

/** `/messaging/notificationpreferences`: always the caller's own (created with defaults on first read). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/messaging/notificationpreferences/my', { config: { access: anyUser } }, async (req) => mine(app.db, req.auth));

  app.post('/messaging/notificationpreferences', { config: { access: anyUser }, schema: { body: batchOf(SavePreferences) } }, async (req) =>
    app.db.transaction(async (tx) => {
      const out = [];
      for (const item of req.body) {
        if (item.personId && item.personId !== req.auth.personId) throw badRequest('personId', 'preferences are saved for your own person only');
        const row = await mine(tx, req.auth);
        const changes = { ...(item.allowPush !== undefined ? { allowPush: item.allowPush } : {}), ...(item.emailFrequency ? { emailFrequency: item.emailFrequency } : {}) };
        out.push(Object.keys(changes).length ? (await tx.update(notificationPreferences).set(changes).where(eq(notificationPreferences.id, row.id)).returning())[0]! : row);
      }
      return out;
    }),
  );
}
