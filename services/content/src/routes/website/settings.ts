import type { FastifyInstance, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Empty, badRequest, batchOf, decodeDataUrl, IdParams, itemParam, notFound, saveRows, type ZodTypeProvider } from '@church/common';
import { settings } from '../../db/website';
import { deleteUserSetting, findSetting, publicSettings, settingsOf, type SettingRow } from '../../repos/website/settings';
import { ChurchParams, PublicSettings, Settings, SettingSave } from '../../schemas/website';

const base = '/content/settings';
const edit = requires('Settings.Edit');
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * `/content/settings`: the church's key-value settings (some public), and each user's own. A value sent as a
 * base64 image is stored through the shared storage and saved as its address.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get(base, { config: { access: edit }, schema: { response: { 200: Settings } } }, async (req) =>
    settingsOf(app.db, req.auth.churchId, null),
  );
  app.get(`${base}/my`, { config: { access: anyUser }, schema: { response: { 200: Settings } } }, async (req) =>
    settingsOf(app.db, req.auth.churchId, userIdOf(req)),
  );
  app.get(`${base}/public/:churchId`, { config: { access: 'public' }, schema: { params: ChurchParams, response: { 200: PublicSettings } } }, async (req) => {
    const rows = await publicSettings(app.db, req.params.churchId);
    return Object.fromEntries(rows.map((r) => [r.keyName, r.value]));
  });

  app.post(base, { config: { access: edit }, schema: { body: batchOf(SettingSave), response: { 200: Settings } } }, async (req) => save(req, null, req.body));
  app.post(`${base}/my`, { config: { access: anyUser }, schema: { body: batchOf(SettingSave), response: { 200: Settings } } }, async (req) => save(req, userIdOf(req), req.body));

  app.delete(`${base}/my/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    if (!(await deleteUserSetting(app.db, req.auth.churchId, userIdOf(req), req.params.id))) throw notFound('Setting');
    return {};
  });

  /** Saves by id, or by key name (one value per key: a save without an id replaces the key's value). */
  async function save(req: FastifyRequest, userId: string | null, items: Array<z.output<typeof SettingSave>>): Promise<SettingRow[]> {
    const churchId = req.auth.churchId;
    // Images are stored before the transaction: a failed upload writes nothing.
    const values = await Promise.all(
      items.map(async (item, i) => {
        if (!item.id && !item.keyName) throw badRequest(itemParam(req, i, 'keyName'), 'is required');
        const image = typeof item.value === 'string' && item.value.startsWith('data:') ? decodeDataUrl(item.value) : null;
        if (typeof item.value === 'string' && item.value.startsWith('data:')) {
          if (!image || !IMAGE_TYPES.has(image.contentType) || !looksLikeImage(image.body)) throw badRequest(itemParam(req, i, 'value'), 'must be a base64 PNG, JPEG, GIF or WebP image');
          const key = `${churchId}/settings/${userId ?? 'church'}/${safeKey(item.keyName ?? 'image')}-${randomUUID().slice(0, 8)}.${image.extension}`;
          return app.deps.storage.put(key, image.body, image.contentType);
        }
        return item.value;
      }),
    );
    return app.db.transaction(async (tx) => {
      const out: SettingRow[] = [];
      for (const [i, item] of items.entries()) {
        const fields = { ...(item.keyName ? { keyName: item.keyName } : {}), ...(values[i] !== undefined ? { value: values[i] } : {}), ...(item.public !== undefined ? { public: item.public } : {}) };
        const existing = await findSetting(tx, churchId, userId, item.id ? { id: item.id } : { keyName: item.keyName! });
        if (item.id && !existing) throw notFound('Setting');
        const [row] = await saveRows(tx, settings, churchId, [
          existing ? { ...fields, id: existing.id } : { userId, keyName: item.keyName!, value: values[i] ?? null, public: userId ? false : (item.public ?? false) },
        ]);
        out.push(row!);
      }
      return out;
    });
  }
}

/** User settings are keyed by the token's user id. */
function userIdOf(req: FastifyRequest): string {
  const id = req.auth.id;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw badRequest('id', 'the token has no user', 'headers');
  return id;
}

const safeKey = (key: string) => key.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 60) || 'image';

/** The bytes start like the type they claim (PNG, JPEG, GIF, WebP). */
function looksLikeImage(body: Buffer): boolean {
  const hex = body.subarray(0, 12).toString('hex');
  return hex.startsWith('89504e47') || hex.startsWith('ffd8ff') || hex.startsWith('47494638') || (hex.startsWith('52494646') && body.subarray(8, 12).toString() === 'WEBP');
}
