import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser } from '@church/auth';
import { Id, IdParams, badRequest, batchOf, deleteRow, findRow, getRow, itemParam, notFound, saveRows, type ZodTypeProvider } from '@church/common';
import { deviceContents } from '../db/schema';
import { contentsOfDevice, deviceOfChurch } from '../repos/devices';
import { Empty } from '../schemas/common';
import { DeviceContent, SaveDeviceContent } from '../schemas/devices';
import { canManageDevice } from './devices';

const base = '/messaging/devicecontents';

/** `/messaging/devicecontents`: what a paired device shows; its owner or content editors manage it. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(`${base}/deviceId/:deviceId`, { config: { access: anyUser }, schema: { params: z.object({ deviceId: Id }), response: { 200: z.array(DeviceContent) } } }, async (req) => {
    const d = await deviceOfChurch(app.db, req.auth.churchId, req.params.deviceId);
    if (!d || !canManageDevice(req.auth, d)) throw notFound('Device');
    return contentsOfDevice(app.db, req.auth.churchId, d.id);
  });

  app.post(base, { config: { access: anyUser }, schema: { body: batchOf(SaveDeviceContent), response: { 200: z.array(DeviceContent) } } }, async (req) =>
    app.db.transaction(async (tx) => {
      for (const [i, item] of req.body.entries()) {
        const d = await deviceOfChurch(tx, req.auth.churchId, item.deviceId);
        if (!d || !canManageDevice(req.auth, d)) throw badRequest(itemParam(req, i, 'deviceId'), 'no such device of yours');
        // an assignment moves only from a device the caller manages too
        const was = item.id ? await findRow(tx, deviceContents, req.auth.churchId, item.id) : undefined;
        const from = was && (await deviceOfChurch(tx, req.auth.churchId, was.deviceId));
        if (was && (!from || !canManageDevice(req.auth, from))) throw notFound('Device content');
      }
      return saveRows(tx, deviceContents, req.auth.churchId, req.body, 'Device content');
    }),
  );

  app.delete(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const row = await getRow(app.db, deviceContents, req.auth.churchId, req.params.id, 'Device content');
    const d = await deviceOfChurch(app.db, req.auth.churchId, row.deviceId);
    if (!d || !canManageDevice(req.auth, d)) throw notFound('Device content');
    await deleteRow(app.db, deviceContents, req.auth.churchId, row.id, 'Device content');
    return {};
  });
}
