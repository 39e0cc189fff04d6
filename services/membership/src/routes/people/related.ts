import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { anyUser, hasPermission, isMember, requires } from '@church/auth';
import { Id, IdList, IdParams, notFound, unauthorized, actorOf, type ZodTypeProvider } from '@church/common';
import { peopleWhoAttended, type VisitFilter } from '../../clients/attendance';
import { claimPerson } from '../../domain/people-save';
import { DIRECTORY_LISTED, DirectoryPerson, directoryEntry, directoryLevel, mayOpenDirectory } from '../../domain/directory';
import { directoryPeople, groupmatesOf, preferencesByPerson, preferencesOf, shareAGroup, statusOf } from '../../repos/directory';
import { Person, PersonRecords, toPerson, viewerOf } from '../../domain/person';
import { TimelineEvent, timeline } from '../../domain/timeline';
import { groupIdsInCategory, peopleByIds, personById } from '../../repos/people';
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
    (req) => {
      // The people routes' who-sees-whom rules (see TimelineViewer).
      const all = hasPermission(req.auth, 'People.View');
      const viewer = { all, membersOnly: !all && isMember(req.auth), personId: req.auth.personId ?? null };
      return timeline(app.db, req.auth.churchId, req.query.personIds ?? [], req.query.groupIds ?? [], viewer);
    },
  );

  // B1App's member directory (DirectoryMasterPanel, DirectorySearch): every listed person as the entry by id shows
  // them, by name. Who may open it and what each entry shows follow `directory/:id`.
  app.get(`${BASE}/directory/all`, { config: { access: anyUser }, schema: { response: { 200: z.array(DirectoryPerson) } } }, async (req) => {
    const { churchId, personId } = req.auth;
    const viewer = viewerOf(req.auth);
    const status = await statusOf(app.db, churchId, personId);
    const level = await directoryLevel(app.db, churchId);
    if (!mayOpenDirectory(level, viewer, status)) throw unauthorized('The directory is not open to you');
    const listed = await directoryPeople(app.db, churchId, viewer.staff ? null : DIRECTORY_LISTED[level]);
    const [prefs, groupmates] = await Promise.all([
      preferencesByPerson(app.db, churchId, listed.map((p) => p.id)),
      personId ? groupmatesOf(app.db, churchId, personId) : new Set<string>(),
    ]);
    const member = viewer.member || status === 'Member' || status === 'Staff';
    return listed.map((p) => directoryEntry(p, prefs.get(p.id), { full: viewer.staff || p.id === personId, member, sharesGroup: groupmates.has(p.id) }));
  });

  app.get(`${BASE}/directory/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: DirectoryPerson } } }, async (req) => {
    const { churchId, personId } = req.auth;
    const viewer = viewerOf(req.auth);
    const status = await statusOf(app.db, churchId, personId);
    if (!mayOpenDirectory(await directoryLevel(app.db, churchId), viewer, status)) throw unauthorized('The directory is not open to you');
    const person = await personById(app.db, churchId, req.params.id);
    if (!person || (person.optedOut && !viewer.staff && person.id !== personId)) throw notFound('Person');
    const self = person.id === personId;
    const audience = {
      full: viewer.staff || self,
      member: viewer.member || status === 'Member' || status === 'Staff',
      sharesGroup: Boolean(personId) && !self && (await shareAGroup(app.db, churchId, personId!, person.id)),
    };
    return directoryEntry(person, await preferencesOf(app.db, churchId, person.id), audience);
  });

  // Any church may be joined: the caller's user gets (or is linked to) a person there.
  app.get(`${BASE}/claim/:churchId`, { config: { access: anyUser }, schema: { params: z.object({ churchId: Id }), response: { 200: Person } } }, async (req) => {
    const { id: userId, email, firstName, lastName } = req.auth;
    return toPerson(await claimPerson(app.db, req.params.churchId, { userId, email, firstName, lastName }, { deps: app.deps, actor: actorOf(req) }));
  });
}
