import type { FastifyInstance } from 'fastify';
import { gdprAnonymize, gdprExport, type ZodTypeProvider } from '@church/common';
import { anonymize, exportPerson } from '../domain/gdpr';

/** GDPR (membership asks, signed): one person's records in messaging, and their erasure. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  const exported = gdprExport('messaging');
  app.post(exported.path, { config: { access: 'internal' }, schema: { body: exported.body, response: { 200: exported.answer } } }, async (req) => ({
    data: await exportPerson(app.db, req.body.churchId, req.body.personId),
  }));

  const anonymized = gdprAnonymize('messaging');
  app.post(anonymized.path, { config: { access: 'internal' }, schema: { body: anonymized.body, response: { 200: anonymized.answer } } }, async (req) => ({
    changed: await anonymize(app.db, req.body.churchId, req.body.personId),
  }));
}
