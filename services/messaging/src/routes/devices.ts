import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, type Claims } from '@church/auth';
import { Id, badRequest, batchOf, conflict, itemParam, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { assertSelfOr, isStaff } from '../domain/access';
import { pairingCode } from '../domain/pairing';
import {
  contentsOfDevice,
  deleteDevice,
  deviceById,
  deviceForStatus,
  deviceOfChurch,
  devicesOf,
  enrolledDevice,
  insertDevice,
  pairableDevice,
  pairDevice,
  releasePushToken,
  updateDevice,
} from '../repos/devices';
import { ChurchIdParams, ChurchParams, Empty } from '../schemas/common';
import { Device, DeviceStatus, Enroll, EnrollAnon, PairAnswer, PairParams, PairQuery, SaveDevice } from '../schemas/devices';

const base = '/messaging/devices';
const DEVICE_STAFF = ['Content.Edit', 'People.Edit'];

/** What leaves: the pairing code only while unpaired (the response schema leaves the push token out). */
const view = <D extends { paired: boolean; pairingCode: string | null }>(d: D) => ({ ...d, pairingCode: d.paired ? null : d.pairingCode });

export function canManageDevice(auth: Claims, d: { churchId: string | null; personId: string | null }) {
  return d.churchId === auth.churchId && ((!!d.personId && d.personId === auth.personId) || isStaff(auth, ...DEVICE_STAFF));
}

const isUniqueViolation = (err: unknown) => ((err as { cause?: { code?: string }; code?: string }).cause?.code ?? (err as { code?: string }).code) === '23505';

/** `/messaging/devices`. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.post(`${base}/enroll`, { config: { access: anyUser }, schema: { body: Enroll, response: { 200: Device } } }, async (req) => {
    const { pushToken, deviceId, ...rest } = req.body;
    const churchId = req.auth.churchId;
    const existing = await enrolledDevice(app.db, churchId, { pushToken, deviceId });
    const values = { ...rest, pushToken: pushToken ?? existing?.pushToken ?? null, deviceId: deviceId ?? existing?.deviceId ?? null, personId: req.auth.personId, lastActiveDate: new Date() };
    // A push token belongs to one device: another church's (or stale) row with it stops receiving.
    if (pushToken) await releasePushToken(app.db, pushToken, existing?.id);
    return view(existing ? await updateDevice(app.db, existing.id, values) : await insertDevice(app.db, { churchId, ...values }));
  });

  app.post(`${base}/enrollAnon`, { config: { access: 'public' }, schema: { body: EnrollAnon, response: { 200: Device } } }, async (req) => {
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        const row = await insertDevice(app.db, { churchId: null, appName: req.body.appName, deviceId: req.body.deviceId ?? null, label: req.body.label ?? null, deviceInfo: req.body.deviceInfo ?? null, pairingCode: pairingCode(), paired: false });
        return view(row);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
    }
    throw conflict('No free pairing code; try again');
  });

  app.post(base, { config: { access: 'public' }, schema: { body: batchOf(SaveDevice), response: { 200: z.array(Device) } } }, async (req) =>
    app.db.transaction(async (tx) => {
      const out = [];
      for (const [i, item] of req.body.entries()) {
        const { id, churchId: bodyChurch, ...fields } = item;
        if (id) {
          const existing = await deviceById(tx, id);
          if (!existing) throw notFound('Device');
          // Without a token only the device's own fields change; its church and person never do.
          if (req.auth && existing.churchId && !canManageDevice(req.auth, existing)) throw notFound('Device');
          out.push(view(await updateDevice(tx, id, { ...fields, lastActiveDate: new Date() })));
        } else {
          if (!fields.appName) throw badRequest(itemParam(req, i, 'appName'), 'is required for a new device');
          const churchId = req.auth?.churchId ?? null;
          if (bodyChurch && bodyChurch !== churchId) throw unauthorized(`${itemParam(req, i, 'churchId')}: a device joins a church by pairing or with that church's token`);
          out.push(view(await insertDevice(tx, { churchId, personId: req.auth?.personId ?? null, ...fields })));
        }
      }
      return out;
    }),
  );

  // B1Admin's pairing screen reads `success`: an unknown or spent code is `{success: false}`, not an error.
  app.get(`${base}/pair/:pairingCode`, { config: { access: anyUser }, schema: { params: PairParams, querystring: PairQuery, response: { 200: PairAnswer } } }, async (req) => {
    const device = await pairableDevice(app.db, req.auth.churchId, req.params.pairingCode.toUpperCase());
    const content = req.query.contentType && req.query.contentId ? { contentType: req.query.contentType, contentId: req.query.contentId } : undefined;
    const row = device && (await pairDevice(app.db, device, { churchId: req.auth.churchId, personId: req.auth.personId }, content));
    return row ? { success: true, ...view(row) } : { success: false };
  });

  app.get(`${base}/status/:deviceId`, { config: { access: 'public' }, schema: { params: z.object({ deviceId: z.string().trim().min(1).max(200) }), response: { 200: DeviceStatus } } }, async (req) => {
    const device = await deviceForStatus(app.db, req.params.deviceId, Id.safeParse(req.params.deviceId).success);
    if (!device) throw notFound('Device');
    const [content] = device.churchId ? await contentsOfDevice(app.db, device.churchId, device.id) : [];
    return { paired: device.paired, contentType: content?.contentType ?? null, contentId: content?.contentId ?? null };
  });

  // B1Admin's profile: the caller's own devices.
  app.get(`${base}/my`, { config: { access: anyUser }, schema: { summary: 'Your own devices', response: { 200: z.array(Device) } } }, async (req) =>
    req.auth.personId ? (await devicesOf(app.db, req.auth.churchId, req.auth.personId)).map(view) : [],
  );

  // Content.Edit or People.Edit see the church's devices, others their own.
  app.get(`${base}/:churchId`, { config: { access: anyUser }, schema: { params: ChurchParams, response: { 200: z.array(Device) } } }, async (req) => {
    if (req.params.churchId !== req.auth.churchId) return [];
    if (isStaff(req.auth, ...DEVICE_STAFF)) return (await devicesOf(app.db, req.auth.churchId)).map(view);
    return req.auth.personId ? (await devicesOf(app.db, req.auth.churchId, req.auth.personId)).map(view) : [];
  });

  app.get(`${base}/:churchId/person/:personId`, { config: { access: anyUser }, schema: { params: z.object({ churchId: Id, personId: Id }), response: { 200: z.array(Device) } } }, async (req) => {
    if (req.params.churchId !== req.auth.churchId) return [];
    assertSelfOr(req.auth, req.params.personId, ...DEVICE_STAFF, 'People.View');
    return (await devicesOf(app.db, req.auth.churchId, req.params.personId)).map(view);
  });

  app.get(`${base}/:churchId/:id`, { config: { access: anyUser }, schema: { params: ChurchIdParams, response: { 200: Device } } }, async (req) => {
    const device = req.params.churchId === req.auth.churchId ? await deviceOfChurch(app.db, req.auth.churchId, req.params.id) : undefined;
    if (!device || !canManageDevice(req.auth, device)) throw notFound('Device');
    return view(device);
  });

  app.delete(`${base}/:churchId/:id`, { config: { access: anyUser }, schema: { params: ChurchIdParams, response: { 200: Empty } } }, async (req) => {
    const device = req.params.churchId === req.auth.churchId ? await deviceOfChurch(app.db, req.auth.churchId, req.params.id) : undefined;
    if (!device || !canManageDevice(req.auth, device)) throw notFound('Device');
    await deleteDevice(app.db, req.auth.churchId, device.id);
    return {};
  });
}
