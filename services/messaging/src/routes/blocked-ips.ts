import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Id, batchOf, notFound, type ZodTypeProvider, type Db } from '@church/common';
import { blockedIps } from '../db/schema';

const Save = z.object({
  id: Id.optional(),
  conversationId: Id.nullish(),
  serviceId: Id.nullish(),
  ipAddress: z.string().trim().min(2).max(64),
});
const ClearItem = z.object({ serviceId: Id, churchId: Id });

async function clear(db: Db, items: Array<{ serviceId: string; churchId: string }>) {
  let removed = 0;
  for (const item of items) {
    removed += (await db.delete(blockedIps).where(and(eq(blockedIps.churchId, item.churchId), eq(blockedIps.serviceId, item.serviceId))).returning({ id: blockedIps.id })).length;
  }
  return { removed };
}

/** `/messaging/blockedips` (legacy chat blocks) and the signed twin content calls. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const hosts = requires('Chat.Host or StreamingServices.Edit');

  app.post('/messaging/blockedips', { config: { access: hosts }, schema: { body: batchOf(Save) } }, async (req) =>
    app.db.transaction(async (tx) => {
      const out = [];
      for (const item of req.body) {
        const { id, ...values } = item;
        if (id) {
          const [row] = await tx.update(blockedIps).set(values).where(and(eq(blockedIps.churchId, req.auth.churchId), eq(blockedIps.id, id))).returning();
          if (!row) throw notFound('Blocked IP');
          out.push(row);
        } else out.push((await tx.insert(blockedIps).values({ id: randomUUID(), churchId: req.auth.churchId, ...values }).returning())[0]!);
      }
      return out;
    }),
  );

  // Spec: JWT, body `[{serviceId, churchId}]`; a user token clears only its own church's services.
  app.post('/messaging/blockedips/clear', { config: { access: requires('StreamingServices.Edit or Chat.Host') }, schema: { body: batchOf(ClearItem) } }, async (req) =>
    clear(app.db, req.body.filter((i) => i.churchId === req.auth.churchId)),
  );

  // Content calls this one server to server (signed) when streaming services are saved.
  app.post('/messaging/internal/blockedips/clear', { config: { access: 'internal' }, schema: { body: batchOf(ClearItem), hide: true } }, async (req) => clear(app.db, req.body));

}
