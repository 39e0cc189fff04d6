import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Id, IdList, IdParams, notFound, type ZodTypeProvider } from '@church/common';
import { BasicPersonList, Person, PersonRecords, toBasicPerson, toPerson, viewerOf } from '../../domain/person';
import { listPeople, namesOf, peopleByIds, peopleInHousehold, personWithFormSubmissions, recentPeople } from '../../repos/people';
import { BASE, PersonWithForms, ownRecord } from './schemas';

const viewPeople = requires('People.View or Member');
const Ids = z.object({ ids: IdList });

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // The whole church is a snapshot per viewer scope: served again until a person of the church changes.
  app.get(BASE, { config: { access: viewPeople }, schema: { response: { 200: PersonRecords } } }, (req, reply) => {
    const viewer = viewerOf(req.auth);
    return app.deps.snapshots.send(req, reply, req.auth.churchId, viewer.membersOnly ? 'members' : 'all', async () =>
      (await listPeople(app.db, req.auth.churchId, viewer)).map(toPerson),
    );
  });

  app.get(`${BASE}/ids`, { config: { access: viewPeople }, schema: { querystring: Ids, response: { 200: PersonRecords } } }, async (req) =>
    (await peopleByIds(app.db, req.auth.churchId, req.query.ids, viewerOf(req.auth))).map(toPerson),
  );

  // Names only, removed people included: lists of history (attendance, giving) name them.
  app.get(`${BASE}/basic`, { config: { access: anyUser }, schema: { querystring: Ids, response: { 200: BasicPersonList } } }, async (req) =>
    (await namesOf(app.db, req.auth.churchId, req.query.ids)).map(toBasicPerson),
  );

  app.get(`${BASE}/recent`, { config: { access: viewPeople }, schema: { response: { 200: PersonRecords } } }, async (req) =>
    (await recentPeople(app.db, req.auth.churchId, viewerOf(req.auth))).map(toPerson),
  );

  // Staff and the household's own people get full records; anyone else of the church gets names only.
  app.get(
    `${BASE}/household/:householdId`,
    { config: { access: anyUser }, schema: { params: z.object({ householdId: Id }), response: { 200: z.array(Person.partial()) } } },
    async (req) => {
      const rows = await peopleInHousehold(app.db, req.auth.churchId, req.params.householdId);
      const insider = viewerOf(req.auth).staff || rows.some((r) => r.id === req.auth.personId);
      return rows.map((r) => (insider ? toPerson(r) : toBasicPerson(r)));
    },
  );

  app.get(`${BASE}/:id`, { config: { access: requires('People.View', ownRecord) }, schema: { params: IdParams, response: { 200: PersonWithForms } } }, async (req) => {
    const found = await personWithFormSubmissions(app.db, req.auth.churchId, req.params.id);
    if (!found) throw notFound('Person');
    return { ...toPerson(found.person), formSubmissions: found.formSubmissions };
  });
}
