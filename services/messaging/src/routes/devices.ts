import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, asc, eq, isNull, ne, or } from 'drizzle-orm';
import { z } from 'zod';
import { anyUser, type Claims } from '@church/auth';
import { Id, badRequest, batchOf, itemParam, notFound, unauthorized, conflict, type ZodTypeProvider } from '@church/common';
import { deviceContents, devices } from '../db/schema';
import { assertSelfOr, isStaff } from '../domain/access';
import { pairingCode } from '../domain/pairing';
import { ChurchIdParams, ContentId, ContentType } from '../schemas';

const DEVICE_STAFF = ['Content.Edit', 'People.Edit'];
const Text = z.string().trim().max(1000);

const Enroll = z.object({
  pushToken: z.string().trim().min(1).max(500).nullish(),
  deviceId: z.string().trim().min(1).max(200).nullish(),
  appName: z.string().trim().min(1).max(100),
  label: Text.nullish(),
  deviceInfo: z.string().max(5000).nullish(),
});

const SaveDevice = z.object({
  id: Id.optional(),
  churchId: Id.nullish(),
  appName: z.string().trim().max(100).nullish(),
  deviceId: z.string().trim().max(200).nullish(),
  pushToken: z.string().trim().max(500).nullish(),
  label: Text.nullish(),
  deviceInfo: z.string().max(5000).nullish(),
});

type DeviceRow = typeof devices.$inferSelect;

/** What leaves: the pairing code only while unpaired. */
const view = (d: DeviceRow) => ({ ...d, pairingCode: d.paired ? null : d.pairingCode });

export function canManageDevice(auth: Claims, d: { churchId: string | null; personId: string | null }) {
  return d.churchId === auth.churchId && ((!!d.personId && d.personId === auth.personId) || isStaff(auth, ...DEVICE_STAFF));
}

/** `/messaging/devices`. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.post('/messaging/devices/enroll', { config: { access: anyUser }, schema: { body: Enroll } }, async (req) => {
    const { pushToken, deviceId, ...rest } = req.body;
    const churchId = req.auth.churchId;
    const match = [pushToken ? eq(devices.pushToken, pushToken) : undefined, deviceId ? eq(devices.deviceId, deviceId) : undefined].filter((x) => !!x);
    const [existing] = match.length
      ? await app.db.select().from(devices).where(and(eq(devices.churchId, churchId), or(...match))).orderBy(asc(devices.registrationDate)).limit(1)
      : [];
    const values = { ...rest, pushToken: pushToken ?? existing?.pushToken ?? null, deviceId: deviceId ?? existing?.deviceId ?? null, personId: req.auth.personId, lastActiveDate: new Date() };
    // A push token belongs to one device: another church's (or stale) row with it stops receiving.
    if (pushToken) await app.db.update(devices).set({ pushToken: null }).where(existing ? and(eq(devices.pushToken, pushToken), ne(devices.id, existing.id)) : eq(devices.pushToken, pushToken));
    if (existing) return view((await app.db.update(devices).set(values).where(eq(devices.id, existing.id)).returning())[0]!);
    return view((await app.db.insert(devices).values({ id: randomUUID(), churchId, ...values }).returning())[0]!);
  });

  app.post(
    '/messaging/devices/enrollAnon',
    { config: { access: 'public' }, schema: { body: z.object({ appName: z.string().trim().min(1).max(100), deviceId: z.string().trim().max(200).nullish(), label: Text.nullish(), deviceInfo: z.string().max(5000).nullish() }) } },
    async (req) => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const code = pairingCode();
        try {
          const [row] = await app.db
            .insert(devices)
            .values({ id: randomUUID(), churchId: null, appName: req.body.appName, deviceId: req.body.deviceId ?? null, label: req.body.label ?? null, deviceInfo: req.body.deviceInfo ?? null, pairingCode: code, paired: false })
            .returning();
          return view(row!);
        } catch (err) {
          const code23505 = (err as { cause?: { code?: string }; code?: string }).cause?.code ?? (err as { code?: string }).code;
          if (code23505 !== '23505') throw err;
        }
      }
      throw conflict('No free pairing code; try again');
    },
  );

  app.post('/messaging/devices', { config: { access: 'public' }, schema: { body: batchOf(SaveDevice) } }, async (req) =>
    app.db.transaction(async (tx) => {
      const out = [];
      for (const [i, item] of req.body.entries()) {
        const { id, churchId: bodyChurch, ...fields } = item;
        if (id) {
          const [existing] = await tx.select().from(devices).where(eq(devices.id, id));
          if (!existing) throw notFound('Device');
          // Without a token only the device's own fields change; its church and person never do.
          if (req.auth && existing.churchId && !canManageDevice(req.auth, existing)) throw notFound('Device');
          const [row] = await tx.update(devices).set({ ...fields, lastActiveDate: new Date() }).where(eq(devices.id, id)).returning();
          out.push(view(row!));
        } else {
          if (!fields.appName) throw badRequest(itemParam(req, i, 'appName'), 'is required for a new device');
          const churchId = req.auth?.churchId ?? null;
          if (bodyChurch && bodyChurch !== churchId) throw unauthorized(`${itemParam(req, i, 'churchId')}: a device joins a church by pairing or with that church's token`);
          const [row] = await tx
            .insert(devices)
            .values({ id: randomUUID(), churchId, personId: req.auth?.personId ?? null, ...fields })
            .returning();
          out.push(view(row!));
        }
      }
      return out;
    }),
  );

  app.get(
    '/messaging/devices/pair/:pairingCode',
    { config: { access: anyUser }, schema: { params: z.object({ pairingCode: z.string().trim().min(1).max(10) }), querystring: z.object({ contentType: ContentType.optional(), contentId: ContentId.optional() }) } },
    async (req) => {
      const code = req.params.pairingCode.toUpperCase();
      const [device] = await app.db.select().from(devices).where(and(eq(devices.pairingCode, code), eq(devices.paired, false), or(isNull(devices.churchId), eq(devices.churchId, req.auth.churchId))));
      if (!device) throw notFound('Pairing code');
      const churchId = req.auth.churchId;
      return app.db.transaction(async (tx) => {
        const [row] = await tx
          .update(devices)
          .set({ churchId, personId: req.auth.personId, paired: true, pairingCode: null, lastActiveDate: new Date() })
          .where(and(eq(devices.id, device.id), eq(devices.paired, false)))
          .returning();
        if (!row) throw notFound('Pairing code');
        if (req.query.contentType && req.query.contentId) {
          await tx.insert(deviceContents).values({ id: randomUUID(), churchId, deviceId: row.id, contentType: req.query.contentType, contentId: req.query.contentId });
        }
        return view(row);
      });
    },
  );

  app.get('/messaging/devices/status/:deviceId', { config: { access: 'public' }, schema: { params: z.object({ deviceId: z.string().trim().min(1).max(200) }) } }, async (req) => {
    const key = req.params.deviceId;
    const isUuid = Id.safeParse(key).success;
    const [device] = await app.db
      .select()
      .from(devices)
      .where(isUuid ? or(eq(devices.id, key), eq(devices.deviceId, key)) : eq(devices.deviceId, key))
      .orderBy(asc(devices.registrationDate))
      .limit(1);
    if (!device) throw notFound('Device');
    const [content] = device.churchId
      ? await app.db.select().from(deviceContents).where(and(eq(deviceContents.churchId, device.churchId), eq(deviceContents.deviceId, device.id))).limit(1)
      : [];
    return { paired: device.paired, contentType: content?.contentType ?? null, contentId: content?.contentId ?? null };
  });

  app.get('/messaging/devices/:churchId', { config: { access: anyUser }, schema: { params: z.object({ churchId: Id }) } }, async (req) => {
    if (req.params.churchId !== req.auth.churchId) return [];
    const staff = isStaff(req.auth, ...DEVICE_STAFF);
    if (!staff && !req.auth.personId) return [];
    const where = staff ? eq(devices.churchId, req.auth.churchId) : and(eq(devices.churchId, req.auth.churchId), eq(devices.personId, req.auth.personId!));
    return (await app.db.select().from(devices).where(where).orderBy(asc(devices.registrationDate))).map(view);
  });

  app.get('/messaging/devices/:churchId/person/:personId', { config: { access: anyUser }, schema: { params: z.object({ churchId: Id, personId: Id }) } }, async (req) => {
    if (req.params.churchId !== req.auth.churchId) return [];
    assertSelfOr(req.auth, req.params.personId, ...DEVICE_STAFF, 'People.View');
    return (await app.db.select().from(devices).where(and(eq(devices.churchId, req.auth.churchId), eq(devices.personId, req.params.personId)))).map(view);
  });

  app.get('/messaging/devices/:churchId/:id', { config: { access: anyUser }, schema: { params: ChurchIdParams } }, async (req) => {
    const [device] = req.params.churchId === req.auth.churchId ? await app.db.select().from(devices).where(and(eq(devices.churchId, req.auth.churchId), eq(devices.id, req.params.id))) : [];
    if (!device || !canManageDevice(req.auth, device)) throw notFound('Device');
    return view(device);
  });

  app.delete('/messaging/devices/:churchId/:id', { config: { access: anyUser }, schema: { params: ChurchIdParams } }, async (req) => {
    const [device] = req.params.churchId === req.auth.churchId ? await app.db.select().from(devices).where(and(eq(devices.churchId, req.auth.churchId), eq(devices.id, req.params.id))) : [];
    if (!device || !canManageDevice(req.auth, device)) throw notFound('Device');
    await app.db.transaction(async (tx) => {
      await tx.delete(deviceContents).where(and(eq(deviceContents.churchId, req.auth.churchId), eq(deviceContents.deviceId, device.id)));
      await tx.delete(devices).where(eq(devices.id, device.id));
    });
    return {};
  });
}
