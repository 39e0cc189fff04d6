import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Id, badRequest, type ZodTypeProvider } from '@church/common';
import { memoryTest } from '../../domain/people/advanced-match';
import { PersonRecords, toPerson, viewerOf } from '../../domain/people/person';
import { ConditionList, parseCondition } from '../../lib/advanced-search';
import { advancedWhere } from '../../repos/advanced-search';
import { type PeopleFilter, inGroupWhere, peopleIdsWhere, peopleWhere, phoneWhere, searchPeople, searchPeopleIds } from '../../repos/people';
import { personRecords } from './records';
import { BASE, SearchInput } from '../../schemas/people';

const viewPeople = requires('People.View or Member');

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  const records = personRecords(app);
  const answerWhere = (reply: FastifyReply, churchId: string, where: PeopleFilter) =>
    records.byIds(
      reply,
      churchId,
      () => peopleIdsWhere(app.db, where),
      () => peopleWhere(app.db, where),
    );
  const search = (reply: FastifyReply, churchId: string, input: z.output<typeof SearchInput>, scope: { membersOnly: boolean }, location: string) => {
    if (!input.term && !input.email) throw badRequest('term', 'term or email is required', location);
    // A name alone is matched in memory; a term with a line break could span two of the searched fields there.
    if (input.term && !input.email && !input.term.includes('\n')) return records.byName(reply, churchId, input.term, scope);
    return records.byIds(
      reply,
      churchId,
      () => searchPeopleIds(app.db, churchId, input, scope),
      () => searchPeople(app.db, churchId, input, scope),
    );
  };

  app.get(`${BASE}/search`, { config: { access: viewPeople }, schema: { querystring: SearchInput, response: { 200: PersonRecords } } }, (req, reply) =>
    search(reply, req.auth.churchId, req.query, viewerOf(req.auth), 'query'),
  );

  app.post(`${BASE}/search`, { config: { access: viewPeople }, schema: { body: SearchInput, response: { 200: PersonRecords } } }, (req, reply) =>
    search(reply, req.auth.churchId, req.body, viewerOf(req.auth), 'body'),
  );

  app.get(
    `${BASE}/search/phone`,
    { config: { access: viewPeople }, schema: { querystring: z.object({ number: z.string().max(50) }), response: { 200: PersonRecords } } },
    (req, reply) => {
      const digits = req.query.number.replace(/\D/g, '');
      if (digits.length < 3) throw badRequest('number', 'number needs at least 3 digits', 'query');
      return answerWhere(reply, req.auth.churchId, phoneWhere(req.auth.churchId, digits, viewerOf(req.auth)));
    },
  );

  app.get(
    `${BASE}/search/group`,
    { config: { access: viewPeople }, schema: { querystring: z.object({ groupId: Id }), response: { 200: PersonRecords } } },
    (req, reply) => answerWhere(reply, req.auth.churchId, inGroupWhere(req.auth.churchId, req.query.groupId, viewerOf(req.auth))),
  );

  // Evaluated over the church's kept person records (domain/people/advanced-match.ts), the same answers as the SQL
  // path, which still serves conditions on groups (membership is not in the records). Each answer is kept, compressed
  // and tagged, per data version, viewer scope, day (ages) and conditions: a repeated search is a version lookup
  // and a send (304 with If-None-Match).
  const advanced = (req: FastifyRequest, reply: FastifyReply, conditions: z.output<typeof ConditionList>) => {
    const churchId = req.auth.churchId;
    const viewer = viewerOf(req.auth);
    const parsed = conditions.map((c, i) => parseCondition(c, i)); // every condition checked (400s) first
    const where = advancedWhere(churchId, parsed, viewer);
    const today = new Date();
    const variant = `advanced\n${viewer.membersOnly ? 'members' : 'all'}\n${today.toISOString().slice(0, 10)}\n${JSON.stringify(parsed)}`;
    return app.deps.snapshots.send(req, reply, churchId, variant, async () => {
      const json = await records.matching(churchId, (columns) => memoryTest(parsed, columns, today), viewer);
      return json ? JSON.parse(json.toString('utf8')) : (await peopleWhere(app.db, where)).map(toPerson);
    });
  };

  app.post(`${BASE}/advancedSearch`, { config: { access: viewPeople }, schema: { body: ConditionList, response: { 200: PersonRecords } } }, (req, reply) =>
    advanced(req, reply, req.body),
  );

  // B1Admin's dashboard search names this path as its react-query key and POSTs its conditions; a GET (what the
  // key alone would fetch) carries none, and is answered as a POST with no conditions: everyone the caller may see.
  // Without this route the GET fell to `/people/:id` and answered 400.
  app.get(`${BASE}/advancedSearch`, { config: { access: viewPeople }, schema: { response: { 200: PersonRecords } } }, (req, reply) => advanced(req, reply, []));
}
