import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requires } from '@church/auth';
import { Id, badRequest, type ZodTypeProvider } from '@church/common';
import { ConditionList } from '../../domain/advanced-search';
import { advancedSearch } from '../../domain/member-search';
import { PersonRecords, toPerson, viewerOf } from '../../domain/person';
import { peopleInGroup, searchByPhone, searchPeople } from '../../repos/people';
import { BASE, SearchInput } from './schemas';

const viewPeople = requires('People.View or Member');

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  const search = async (churchId: string, input: z.output<typeof SearchInput>, scope: { membersOnly: boolean }, location: string) => {
    if (!input.term && !input.email) throw badRequest('term', 'term or email is required', location);
    return (await searchPeople(app.db, churchId, input, scope)).map(toPerson);
  };

  app.get(`${BASE}/search`, { config: { access: viewPeople }, schema: { querystring: SearchInput, response: { 200: PersonRecords } } }, (req) =>
    search(req.auth.churchId, req.query, viewerOf(req.auth), 'query'),
  );

  app.post(`${BASE}/search`, { config: { access: viewPeople }, schema: { body: SearchInput, response: { 200: PersonRecords } } }, (req) =>
    search(req.auth.churchId, req.body, viewerOf(req.auth), 'body'),
  );

  app.get(
    `${BASE}/search/phone`,
    { config: { access: viewPeople }, schema: { querystring: z.object({ number: z.string().max(50) }), response: { 200: PersonRecords } } },
    async (req) => {
      const digits = req.query.number.replace(/\D/g, '');
      if (digits.length < 3) throw badRequest('number', 'number needs at least 3 digits', 'query');
      return (await searchByPhone(app.db, req.auth.churchId, digits, viewerOf(req.auth))).map(toPerson);
    },
  );

  app.get(
    `${BASE}/search/group`,
    { config: { access: viewPeople }, schema: { querystring: z.object({ groupId: Id }), response: { 200: PersonRecords } } },
    async (req) => (await peopleInGroup(app.db, req.auth.churchId, req.query.groupId, viewerOf(req.auth))).map(toPerson),
  );

  app.post(`${BASE}/advancedSearch`, { config: { access: viewPeople }, schema: { body: ConditionList, response: { 200: PersonRecords } } }, async (req) =>
    (await advancedSearch(app.db, req.auth.churchId, req.body, viewerOf(req.auth))).map(toPerson),
  );
}
