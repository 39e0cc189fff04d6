import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, requires } from '@church/auth';
import { Id, IdList, IdParams, actorOf, type ZodTypeProvider } from '@church/common';
import { peopleWhoAttended, type VisitFilter } from '../../clients/attendance';
import { claimPerson } from '../../domain/people/save';
import { DirectoryPerson, directoryOf, wholeDirectory } from '../../domain/people/directory';
import { Person, PersonRecords, toPerson } from '../../domain/people/person';
import { TimelineEvent, timelineFor } from '../../domain/people/timeline';
import { groupIdsInCategory, peopleByIds } from '../../repos/people';
import { BASE } from '../../schemas/people';
import { AttendanceFilter } from '../../schemas/people/related';

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // Who attended is attendance's data; when it cannot answer, a 502 (never an empty list that looks like no one).
  app.get(`${BASE}/attendance`, { config: { access: requires('People.Edit') }, schema: { querystring: AttendanceFilter, response: { 200: PersonRecords } } }, async (req) => {
    const churchId = req.auth.churchId;
    const { startDate, endDate, ...filter } = req.query;
    const body: VisitFilter = { churchId, ...filter, startDate: startDate?.toISOString(), endDate: endDate?.toISOString() };
    if (filter.categoryName) {
      // Attendance does not know group categories: it is sent the category's groups.
      body.groupIds = await groupIdsInCategory(app.db, churchId, filter.categoryName);
      if (!body.groupIds.length) return [];
    }
    const personIds = await peopleWhoAttended(app.deps.internal, body);
    return (await peopleByIds(app.db, churchId, [...new Set(personIds)])).map(toPerson);
  });

  app.get(
    `${BASE}/timeline`,
    {
      config: { access: anyUser },
      schema: { querystring: z.object({ personIds: IdList.optional(), groupIds: IdList.optional() }), response: { 200: z.array(TimelineEvent) } },
    },
    (req) => timelineFor(app.db, actorOf(req), req.query.personIds ?? [], req.query.groupIds ?? []),
  );

  // B1App's member directory (DirectoryMasterPanel, DirectorySearch): every listed person as the entry by id shows
  // them, by name. Who may open it and what each entry shows follow `directory/:id`.
  app.get(`${BASE}/directory/all`, { config: { access: anyUser }, schema: { response: { 200: z.array(DirectoryPerson) } } }, (req) => wholeDirectory(app.db, actorOf(req)));

  app.get(`${BASE}/directory/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: DirectoryPerson } } }, (req) => directoryOf(app.db, actorOf(req), req.params.id));

  // Any church may be joined: the caller's user gets (or is linked to) a person there.
  app.get(`${BASE}/claim/:churchId`, { config: { access: anyUser }, schema: { params: z.object({ churchId: Id }), response: { 200: Person } } }, async (req) => {
    const { id: userId, email, firstName, lastName } = req.auth;
    return toPerson(await claimPerson(app.db, req.params.churchId, { userId, email, firstName, lastName }, { deps: app.deps, actor: actorOf(req) }));
  });
}
