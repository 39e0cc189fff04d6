import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Empty, Id, IdParams, batchOf, notFound, reportChanges, type ZodTypeProvider } from '@church/common';
import { saveSettings } from '../domain/settings';
import { deleteSetting, listSettings } from '../repos/settings';

const Setting = z.object({ id: z.string(), churchId: z.string(), keyName: z.string(), value: z.string().nullable(), public: z.boolean() });
const SettingList = z.array(Setting);
/**
 * A setting as the apps' settings editors send it: a new one as `{churchId, public: 1, keyName}` (the church is the
 * token's; `id: ""` and `0`/`1` are read by the shared validation), and the value as text, a number or a boolean,
 * kept as its text (`18`, `true`).
 */
const SettingSave = z.object({
  id: Id.optional(),
  keyName: z.string().trim().min(1, 'keyName is required').max(100),
  value: z
    .union([z.string().max(8 * 1024 * 1024), z.number(), z.boolean()])
    .nullish()
    .transform((v) => (v === null || v === undefined ? v : String(v))),
  public: z.boolean().optional(),
});

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const base = '/membership/settings';

  app.get(base, { config: { access: requires('Settings.Edit') }, schema: { response: { 200: SettingList } } }, (req) =>
    listSettings(app.db, req.auth.churchId),
  );

  // A site's theme and branding before anyone signs in: only settings saved with `public: true`, as {keyName: value}.
  app.get(
    `${base}/public/:churchId`,
    { config: { access: 'public' }, schema: { params: z.object({ churchId: Id }), response: { 200: z.record(z.string(), z.string().nullable()) } } },
    async (req) => Object.fromEntries((await listSettings(app.db, req.params.churchId, true)).map((s) => [s.keyName, s.value])),
  );

  app.post(base, { config: { access: requires('Settings.Edit') }, schema: { body: batchOf(SettingSave), response: { 200: SettingList } } }, (req) =>
    saveSettings(app.db, app.deps.storage, req.auth.churchId, req.body, { deps: app.deps, req }),
  );

  // B1Admin's grade promotion editor removes its setting when switched off.
  app.delete(`${base}/:id`, { config: { access: requires('Settings.Edit') }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    await app.db.transaction(async (tx) => {
      if (!(await deleteSetting(tx, req.auth.churchId, req.params.id))) throw notFound('Setting');
      await reportChanges(app.deps, [{ churchId: req.auth.churchId, entityType: 'setting', entityId: req.params.id, action: 'destroyed' }], { req, tx });
    });
    return {};
  });
}
