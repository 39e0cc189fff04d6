import { randomUUID } from 'node:crypto';
import { and, asc, eq, isNotNull, isNull, ne, or } from 'drizzle-orm';
import type { Db, DbOrTx } from '@church/common';
import { deviceContents, devices } from '../db/schema';

export type DeviceRow = typeof devices.$inferSelect;
export type DeviceContentRow = typeof deviceContents.$inferSelect;
type DeviceValues = Partial<Omit<typeof devices.$inferInsert, 'id'>>;

/** A device of the church (any of its people's). */
export async function deviceOfChurch(db: DbOrTx, churchId: string, id: string): Promise<DeviceRow | undefined> {
  const [row] = await db.select().from(devices).where(and(eq(devices.churchId, churchId), eq(devices.id, id)));
  return row;
}

/** A device by id whatever its church (anonymous devices have none until paired). */
export async function deviceById(db: DbOrTx, id: string): Promise<DeviceRow | undefined> {
  const [row] = await db.select().from(devices).where(eq(devices.id, id));
  return row;
}

/** The church's devices, or one person's, oldest first. */
export async function devicesOf(db: DbOrTx, churchId: string, personId?: string): Promise<DeviceRow[]> {
  return db
    .select()
    .from(devices)
    .where(and(eq(devices.churchId, churchId), personId ? eq(devices.personId, personId) : undefined))
    .orderBy(asc(devices.registrationDate));
}

/** The church's device first enrolled with this push token or device id. */
export async function enrolledDevice(db: DbOrTx, churchId: string, match: { pushToken?: string | null; deviceId?: string | null }): Promise<DeviceRow | undefined> {
  const by = [match.pushToken ? eq(devices.pushToken, match.pushToken) : undefined, match.deviceId ? eq(devices.deviceId, match.deviceId) : undefined].filter((x) => !!x);
  if (!by.length) return undefined;
  const [row] = await db.select().from(devices).where(and(eq(devices.churchId, churchId), or(...by))).orderBy(asc(devices.registrationDate)).limit(1);
  return row;
}

/** A push token belongs to one device: every other row holding it (any church's) stops receiving. */
export async function releasePushToken(db: DbOrTx, pushToken: string, keepDeviceId?: string): Promise<void> {
  await db
    .update(devices)
    .set({ pushToken: null })
    .where(keepDeviceId ? and(eq(devices.pushToken, pushToken), ne(devices.id, keepDeviceId)) : eq(devices.pushToken, pushToken));
}

export async function insertDevice(db: DbOrTx, values: DeviceValues): Promise<DeviceRow> {
  const [row] = await db
    .insert(devices)
    .values({ ...values, id: randomUUID() })
    .returning();
  return row!;
}

export async function updateDevice(db: DbOrTx, id: string, values: DeviceValues): Promise<DeviceRow> {
  const [row] = await db.update(devices).set(values).where(eq(devices.id, id)).returning();
  return row!;
}

/** An unpaired device with this code that the church may pair (anonymous, or already its own). */
export async function pairableDevice(db: DbOrTx, churchId: string, pairingCode: string): Promise<DeviceRow | undefined> {
  const [row] = await db
    .select()
    .from(devices)
    .where(and(eq(devices.pairingCode, pairingCode), eq(devices.paired, false), or(isNull(devices.churchId), eq(devices.churchId, churchId))));
  return row;
}

/** Pairs a device to the caller's church and person, and assigns content when given; undefined when another pairing won. */
export async function pairDevice(db: Db, device: DeviceRow, to: { churchId: string; personId: string | null }, content?: { contentType: string; contentId: string }): Promise<DeviceRow | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(devices)
      .set({ churchId: to.churchId, personId: to.personId, paired: true, pairingCode: null, lastActiveDate: new Date() })
      .where(and(eq(devices.id, device.id), eq(devices.paired, false)))
      .returning();
    if (row && content) await tx.insert(deviceContents).values({ id: randomUUID(), churchId: to.churchId, deviceId: row.id, ...content });
    return row;
  });
}

/** A device by its id or the client's own device id (the first enrolled), for the pairing status screen. */
export async function deviceForStatus(db: DbOrTx, key: string, isUuid: boolean): Promise<DeviceRow | undefined> {
  const [row] = await db
    .select()
    .from(devices)
    .where(isUuid ? or(eq(devices.id, key), eq(devices.deviceId, key)) : eq(devices.deviceId, key))
    .orderBy(asc(devices.registrationDate))
    .limit(1);
  return row;
}

/** Removes a device with its content assignments. */
export async function deleteDevice(db: Db, churchId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(deviceContents).where(and(eq(deviceContents.churchId, churchId), eq(deviceContents.deviceId, id)));
    await tx.delete(devices).where(and(eq(devices.churchId, churchId), eq(devices.id, id)));
  });
}

/** The person's devices that take pushes. */
export async function pushTargets(db: DbOrTx, churchId: string, personId: string): Promise<Array<{ id: string; pushToken: string }>> {
  const rows = await db
    .select({ id: devices.id, pushToken: devices.pushToken })
    .from(devices)
    .where(and(eq(devices.churchId, churchId), eq(devices.personId, personId), isNotNull(devices.pushToken)));
  return rows.filter((r): r is { id: string; pushToken: string } => !!r.pushToken);
}

/** A token the provider reports dead leaves its device. */
export async function forgetPushToken(db: DbOrTx, deviceId: string): Promise<void> {
  await db.update(devices).set({ pushToken: null }).where(eq(devices.id, deviceId));
}

/** What a device shows (its content assignments). */
export async function contentsOfDevice(db: DbOrTx, churchId: string, deviceId: string): Promise<DeviceContentRow[]> {
  return db.select().from(deviceContents).where(and(eq(deviceContents.churchId, churchId), eq(deviceContents.deviceId, deviceId)));
}
