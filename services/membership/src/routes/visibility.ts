import type { FastifyInstance } from 'fastify';
import { anyUser } from '@church/auth';
import { badRequest, reportChanges, type ZodTypeProvider } from '@church/common';
import { Preferences, PreferencesSave, savePreferences, withDefaults } from '../domain/people/directory';
import { preferencesOf } from '../repos/directory';

const BASE = '/membership/visibilityPreferences';

/** The caller's own directory preferences (address, phone, email: everyone | members | groups | none). */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(`${BASE}/my`, { config: { access: anyUser }, schema: { response: { 200: Preferences } } }, async (req) => {
    const { churchId, personId } = req.auth;
    if (!personId) throw badRequest('personId', 'your login has no person at this church', 'headers');
    return withDefaults(personId, await preferencesOf(app.db, churchId, personId));
  });

  app.post(BASE, { config: { access: anyUser }, schema: { body: PreferencesSave, response: { 200: Preferences } } }, async (req) => {
    const { churchId, personId } = req.auth;
    if (!personId) throw badRequest('personId', 'your login has no person at this church', 'headers');
    const row = await app.db.transaction(async (tx) => {
      const saved = await savePreferences(tx, churchId, personId, req.body);
      await reportChanges(app.deps, [{ churchId, entityType: 'visibilityPreference', entityId: saved.id, action: 'saved', after: { address: saved.address, phoneNumber: saved.phoneNumber, email: saved.email } }], { req, tx });
      return saved;
    });
    return withDefaults(personId, row);
  });
}
