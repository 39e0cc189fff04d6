import { notFound, reportChanges, type Actor } from '@church/common';
import { anonymizeInModules, exportFromModules } from '../clients/gdpr';
import type { MembershipDeps } from '../deps';
import { anonymizePerson, anyPersonById, membershipRecordsOf, usersOfPerson } from '../repos/gdpr';
import { formSubmissionsAbout } from '../repos/people';
import { toPerson } from './people/person';
import { announce, revokeTokens } from './revocations';

/**
 * A person's data protection rights (B1Admin's person page → data management): everything the church keeps about
 * them in every module as one download, and erasure that keeps the church's money and attendance whole.
 */

/** Removed people too: a soft-deleted record still holds personal data the person may ask for. */
async function personOf(deps: Pick<MembershipDeps, 'db'>, churchId: string, personId: string) {
  const row = await anyPersonById(deps.db, churchId, personId);
  if (!row) throw notFound('Person');
  return row;
}

/** Everything the church keeps about the person; every module answers or the export fails (502 naming it): a partial export would look complete. */
export async function exportPerson(deps: Pick<MembershipDeps, 'db' | 'internal'>, churchId: string, personId: string) {
  const person = await personOf(deps, churchId, personId);
  const [modules, own, submissions] = await Promise.all([
    usersOfPerson(deps.db, churchId, person.id).then((users) => exportFromModules(deps.internal, churchId, person.id, users)),
    membershipRecordsOf(deps.db, churchId, person.id, person.householdId),
    formSubmissionsAbout(deps.db, churchId, person.id),
  ]);
  return { exportedAt: new Date(), churchId, personId: person.id, person: toPerson(person), membership: { ...own, formSubmissions: submissions }, modules };
}

/**
 * Anonymizes the person in every module. The other modules first (each idempotent): if one cannot, membership still
 * holds the person and the staff member can try again; once they have all answered, membership's part is one
 * transaction, and no token of the person's for this church works any more (their login keeps working elsewhere).
 */
export async function anonymize(deps: Pick<MembershipDeps, 'db' | 'internal' | 'module' | 'queue' | 'revocations' | 'storage'>, actor: Actor, personId: string) {
  const { churchId } = actor;
  const person = await personOf(deps, churchId, personId);
  const modules = await anonymizeInModules(deps.internal, churchId, person.id, await usersOfPerson(deps.db, churchId, person.id));
  const { stamps, photo } = await deps.db.transaction(async (tx) => {
    const done = await anonymizePerson(tx, churchId, person.id);
    await reportChanges(deps, [{ churchId, entityType: 'person', entityId: person.id, action: 'anonymized', event: 'person.destroyed', data: { id: person.id } }], { req: actor, tx });
    // Their login keeps working elsewhere, but no token of theirs for this church does.
    return { stamps: await revokeTokens(tx, done.userIds.map((userId) => ({ userId, churchId }))), photo: done.photo };
  });
  await announce(deps, stamps);
  if (photo) {
    for (const ext of ['png', 'jpg', 'gif', 'webp']) await deps.storage.remove(`${churchId}/people/${person.id}.${ext}`).catch(() => undefined);
  }
  return { personId: person.id, modules };
}
