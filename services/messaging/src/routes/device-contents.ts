import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, IdParams, badRequest, batchOf, itemParam, notFound, type DbOrTx, type ZodTypeProvider } from '@church/common';
import { deviceContents, devices } from '../db/schema';
import { ContentId, ContentType } from '../schemas';
import { canManageDevice } from './devices';

const Save = z.object({ id: Id.optional(), deviceId: Id, contentType: ContentType, contentId: ContentId });

/** `/messaging/devicecontents`: what a paired device shows; its owner or content editors manage it. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const device = async (churchId: string, id: string, db: DbOrTx = app.db) => {
    const [row] = await db.select().from(devices).where(and(eq(devices.churchId, churchId), eq(devices.id, id)));
    return row;
  };

  app.get('/messaging/devicecontents/deviceId/:deviceId', { config: { access: anyUser }, schema: { params: z.object({ deviceId: Id }) } }, async (req) => {
    const d = await device(req.auth.churchId, req.params.deviceId);
    if (!d || !canManageDevice(req.auth, d)) throw notFound('Device');
    return app.db.select().from(deviceContents).where(and(eq(deviceContents.churchId, req.auth.churchId), eq(deviceContents.deviceId, d.id)));
  });

  app.post('/messaging/devicecontents', { config: { access: anyUser }, schema: { body: batchOf(Save) } }, async (req) =>
    app.db.transaction(async (tx) => {
      const out = [];
      for (const [i, item] of req.body.entries()) {
        const d = await device(req.auth.churchId, item.deviceId, tx);
        if (!d || !canManageDevice(req.auth, d)) throw badRequest(itemParam(req, i, 'deviceId'), 'no such device of yours');
        const { id, ...values } = item;
        if (id) {
          const [row] = await tx.update(deviceContents).set(values).where(and(eq(deviceContents.churchId, req.auth.churchId), eq(deviceContents.id, id))).returning();
          if (!row) throw notFound('Device content');
          out.push(row);
        } else {
          out.push((await tx.insert(deviceContents).values({ id: randomUUID(), churchId: req.auth.churchId, ...values }).returning())[0]!);
        }
      }
      return out;
    }),
  );

  app.delete('/messaging/devicecontents/:id', { config: { access: anyUser }, schema: { params: IdParams } }, async (req) => {
    const [row] = await app.db.select().from(deviceContents).where(and(eq(deviceContents.churchId, req.auth.churchId), eq(deviceContents.id, req.params.id)));
    const d = row ? await device(req.auth.churchId, row.deviceId) : undefined;
    if (!row || !d || !canManageDevice(req.auth, d)) throw notFound('Device content');
    await app.db.delete(deviceContents).where(eq(deviceContents.id, row.id));
    return {};
  });
}
