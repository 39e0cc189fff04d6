import type { SQL } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Id, badRequest, type ZodTypeProvider } from '@church/common';
import { ConditionList } from '../../domain/advanced-search';
import { advancedWhere } from '../../domain/member-search';
import { PersonRecords, viewerOf } from '../../domain/person';
import { inGroupWhere, peopleIdsWhere, peopleWhere, phoneWhere, searchPeople, searchPeopleIds } from '../../repos/people';
import { personRecords } from './records';
import { BASE, SearchInput } from './schemas';

const viewPeople = requires('People.View or Member');

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  const records = personRecords(app);
  const answerWhere = (reply: FastifyReply, churchId: string, where: SQL) =>
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

  app.post(`${BASE}/advancedSearch`, { config: { access: viewPeople }, schema: { body: ConditionList, response: { 200: PersonRecords } } }, (req, reply) => {
    return answerWhere(reply, req.auth.churchId, advancedWhere(req.auth.churchId, req.body, viewerOf(req.auth)));
  });
}
