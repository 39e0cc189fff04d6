import type { FastifyInstance } from 'fastify';
import { gdprAnonymize, gdprExport, serveOwned, type ZodTypeProvider } from '@church/common';
import { conversations } from '../db/schema';
import { anonymize, exportPerson } from '../domain/gdpr';

/** GDPR (membership asks, signed): one person's records in messaging, and their erasure. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  // Other modules' reference checks: which of these ids are the church's conversations (a person's notes).
  serveOwned(app, 'messaging', { conversations });

  const exported = gdprExport('messaging');
  app.post(exported.path, { config: { access: 'internal' }, schema: { body: exported.body, response: { 200: exported.answer } } }, async (req) => ({
    data: await exportPerson(app.db, req.body.churchId, req.body.personId),
  }));

  const anonymized = gdprAnonymize('messaging');
  app.post(anonymized.path, { config: { access: 'internal' }, schema: { body: anonymized.body, response: { 200: anonymized.answer } } }, async (req) => ({
    changed: await anonymize(app.db, req.body.churchId, req.body.personId),
  }));
}
