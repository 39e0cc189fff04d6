import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Id, IdParams, notFound, type ZodTypeProvider } from '@church/common';
import { BasicPersonList, Person, PersonRecords, toBasicPerson, toPerson, viewerOf } from '../../domain/people/person';
import { ageGroups, countsByName } from '../../domain/people/demographics';
import { demographicCounts, firstPeople, formSubmissionsAbout, listPeople, livePerson, namesOf, peopleByIds, peopleInHousehold, personReadState, recentPeople } from '../../repos/people';
import { BASE, PersonWithForms, ownRecord } from '../../schemas/people';
import { Ids, Demographics } from '../../schemas/people/read';

const viewPeople = requires('People.View or Member');
/** bytes a kept person answer holds besides its body: its key, entry and version (an estimate, for the budget) */
const KEPT_OVERHEAD = 200;

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // The whole church is a snapshot per viewer scope: served again until a person of the church changes.
  app.get(BASE, { config: { access: viewPeople }, schema: { response: { 200: PersonRecords } } }, (req, reply) => {
    const viewer = viewerOf(req.auth);
    return app.deps.snapshots.send(req, reply, req.auth.churchId, viewer.membersOnly ? 'members' : 'all', async () =>
      (await listPeople(app.db, req.auth.churchId, viewer)).map(toPerson),
    );
  });

  // B1Admin's people list: the same list, or its first `pageSize` people by name while the rest loads.
  app.get(
    `${BASE}/list`,
    { config: { access: viewPeople }, schema: { querystring: z.object({ pageSize: z.coerce.number().int().min(0).max(100_000).optional() }), response: { 200: PersonRecords } } },
    async (req, reply) => {
      const viewer = viewerOf(req.auth);
      if (req.query.pageSize) return (await firstPeople(app.db, req.auth.churchId, viewer, req.query.pageSize)).map(toPerson);
      return app.deps.snapshots.send(req, reply, req.auth.churchId, viewer.membersOnly ? 'members' : 'all', async () =>
        (await listPeople(app.db, req.auth.churchId, viewer)).map(toPerson),
      );
    },
  );

  // B1Admin's demographics page: the church's live people by gender, status, marital status, campus and age.
  // Campus names belong to attendance, which membership cannot ask yet: a campus is named by its id.
  // Kept per data version and day (ages): a repeat is a version lookup, not five passes over the church's people.
  app.get(`${BASE}/demographics`, { config: { access: requires('People.View') }, schema: { response: { 200: Demographics } } }, (req, reply) =>
    app.deps.snapshots.send(req, reply, req.auth.churchId, `demographics\n${new Date().toISOString().slice(0, 10)}`, async () => {
      const d = await demographicCounts(app.db, req.auth.churchId);
      return {
        total: d.gender.reduce((sum, r) => sum + r.count, 0),
        ageGroups: ageGroups(d.ages),
        membershipStatus: countsByName(d.membershipStatus),
        gender: countsByName(d.gender),
        maritalStatus: countsByName(d.maritalStatus),
        campus: d.campus.map((c) => ({ name: c.id ?? 'Unassigned', count: c.count, id: c.id ?? '' })),
      };
    }),
  );

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

  // A person's answer is kept at the church's data version (the snapshots store), so a read asks PostgreSQL
  // only for that version and whether anything was submitted about the person: a small statement shared by
  // concurrent reads, with no record to decode or serialize. Form submissions are not under the version; a
  // person who has some is read whole each time, and a kept answer never holds any.
  app.get(`${BASE}/:id`, { config: { access: requires('People.View', ownRecord) }, schema: { params: IdParams, response: { 200: PersonWithForms } } }, async (req, reply) => {
    const key = { churchId: req.auth.churchId, id: req.params.id };
    const state = await personReadState(app.db, key);
    if (!state) throw notFound('Person');
    if (state.hasForms) {
      const [person, formSubmissions] = await Promise.all([livePerson(app.db, key), formSubmissionsAbout(app.db, key.churchId, key.id)]);
      if (!person) throw notFound('Person');
      return { ...toPerson(person), formSubmissions };
    }
    const kept = await app.deps.snapshots.value(
      `person\n${key.churchId}\n${key.id}`.toLowerCase(),
      state.version,
      async () => {
        const person = await livePerson(app.db, key);
        return person ? Buffer.from(reply.serializeInput({ ...toPerson(person), formSubmissions: [] }, '200') as string) : null;
      },
      (body) => KEPT_OVERHEAD + (body?.length ?? 0),
    );
    if (!kept) throw notFound('Person');
    // Sent as the bytes the route's serializer wrote when the answer was kept.
    return (reply as FastifyReply).type('application/json; charset=utf-8').send(kept);
  });
}
