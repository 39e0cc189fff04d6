import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Empty, Id, IdParams, batchOf, notFound, reportChanges, actorOf, type ZodTypeProvider } from '@church/common';
import { saveSettings } from '../domain/settings';
import { deleteSetting, listSettings } from '../repos/settings';
import { SettingList, SettingSave } from '../schemas/settings';

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
    saveSettings(app.db, app.deps.storage, req.auth.churchId, req.body, { deps: app.deps, actor: actorOf(req) }),
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
