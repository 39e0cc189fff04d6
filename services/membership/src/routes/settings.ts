import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Id, batchOf, type ZodTypeProvider } from '@church/common';
import { saveSettings } from '../domain/settings';
import { listSettings } from '../repos/settings';

const Setting = z.object({ id: z.string(), churchId: z.string(), keyName: z.string(), value: z.string().nullable(), public: z.boolean() });
const SettingList = z.array(Setting);
const SettingSave = z.object({
  id: Id.optional(),
  keyName: z.string().trim().min(1, 'keyName is required').max(100),
  value: z.string().max(8 * 1024 * 1024).nullish(),
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
    saveSettings(app.db, app.deps.storage, req.auth.churchId, req.body),
  );
}
