import type { FastifyInstance } from 'fastify';
import { requires } from '@church/auth';
import { actorOf, type ZodTypeProvider } from '@church/common';
import { anonymize, exportPerson } from '../domain/gdpr';
import { membershipDeps } from '../deps';
import { GdprAnonymized, GdprExport, GdprParams } from '../schemas/gdpr';

const BASE = '/membership/gdpr/people/:personId';
const editPeople = { access: requires('People.Edit') };

/**
 * A person's data protection rights (B1Admin's person page → data management; People.Edit): everything the church
 * keeps about them in every module as one download, and erasure that keeps the church's money and attendance whole.
 */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = membershipDeps(app);

  app.get(`${BASE}/export`, { config: editPeople, schema: { summary: 'Export everything the church keeps about a person', params: GdprParams, response: { 200: GdprExport } } }, (req) =>
    exportPerson(deps, req.auth.churchId, req.params.personId),
  );

  app.delete(`${BASE}/anonymize`, { config: editPeople, schema: { summary: 'Anonymize a person in every module', params: GdprParams, response: { 200: GdprAnonymized } } }, (req) =>
    anonymize(deps, actorOf(req), req.params.personId),
  );
}
