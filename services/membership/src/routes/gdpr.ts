import type { FastifyInstance } from 'fastify';
import { requires } from '@church/auth';
import { notFound, reportChanges, type ZodTypeProvider } from '@church/common';
import { anonymizeInModules, exportFromModules } from '../clients/gdpr';
import { membershipDeps } from '../deps';
import { toPerson } from '../domain/person';
import { announce, revokeTokens } from '../domain/revocations';
import { anonymizePerson, anyPersonById, membershipRecordsOf, usersOfPerson } from '../repos/gdpr';
import { formSubmissionsAbout } from '../repos/people';
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

  // Removed people too: a soft-deleted record still holds personal data the person may ask for.
  const personOf = async (churchId: string, personId: string) => {
    const row = await anyPersonById(app.db, churchId, personId);
    if (!row) throw notFound('Person');
    return row;
  };

  app.get(`${BASE}/export`, { config: editPeople, schema: { summary: 'Export everything the church keeps about a person', params: GdprParams, response: { 200: GdprExport } } }, async (req) => {
    const { churchId } = req.auth;
    const person = await personOf(churchId, req.params.personId);
    // Every module answers or the export fails (502 naming it): a partial export would look complete.
    const [modules, own, submissions] = await Promise.all([
      usersOfPerson(app.db, churchId, person.id).then((users) => exportFromModules(app.deps.internal, churchId, person.id, users)),
      membershipRecordsOf(app.db, churchId, person.id, person.householdId),
      formSubmissionsAbout(app.db, churchId, person.id),
    ]);
    return { exportedAt: new Date(), churchId, personId: person.id, person: toPerson(person), membership: { ...own, formSubmissions: submissions }, modules };
  });

  app.delete(`${BASE}/anonymize`, { config: editPeople, schema: { summary: 'Anonymize a person in every module', params: GdprParams, response: { 200: GdprAnonymized } } }, async (req) => {
    const { churchId } = req.auth;
    const person = await personOf(churchId, req.params.personId);
    // The other modules first (each idempotent): if one cannot, membership still holds the person and the staff
    // member can try again; once they have all answered, membership's part is one transaction.
    const modules = await anonymizeInModules(app.deps.internal, churchId, person.id, await usersOfPerson(app.db, churchId, person.id));
    const { stamps, photo } = await app.db.transaction(async (tx) => {
      const done = await anonymizePerson(tx, churchId, person.id);
      await reportChanges(deps, [{ churchId, entityType: 'person', entityId: person.id, action: 'anonymized', event: 'person.destroyed', data: { id: person.id } }], { req, tx });
      // Their login keeps working elsewhere, but no token of theirs for this church does.
      return { stamps: await revokeTokens(tx, done.userIds.map((userId) => ({ userId, churchId }))), photo: done.photo };
    });
    await announce(app.deps, stamps);
    if (photo) {
      for (const ext of ['png', 'jpg', 'gif', 'webp']) await app.deps.storage.remove(`${churchId}/people/${person.id}.${ext}`).catch(() => undefined);
    }
    return { personId: person.id, modules };
  });
}
