import type { FastifyInstance } from 'fastify';
import { anyUser, requires } from '@church/auth';
import { Empty, IdParams, REMOTE, actorOf, checkReferences, notFound, unauthorized, type ZodTypeProvider } from '@church/common';
import { contentDeps } from '../../../deps';
import { editRegistration } from '../../../domain/registrations/edit';
import { cancel, ownOrStaff, promote, remove } from '../../../domain/registrations/lifecycle';
import { isStaff } from '../../../domain/registrations/places';
import { registrationDetail } from '../../../domain/registrations/views';
import { choicesOf, countActive, eventsByIds, findEvent, findRegistration, membersOf, paymentsOf, registrationsOfEvent, registrationsOfPerson, type MemberRow } from '../../../repos/registrations';
import { ChurchQuery, EventParams, PersonParams, Registration, RegistrationCount, RegistrationEdit, Registrations } from '../../../schemas/registrations';

const base = '/content/registrations';
const staff = requires('Content.Edit');

const byRegistration = (members: MemberRow[]) => {
  const out = new Map<string, MemberRow[]>();
  for (const m of members) out.set(m.registrationId, [...(out.get(m.registrationId) ?? []), m]);
  return out;
};

/** Reading and changing registrations: staff for an event's list, the registrant or staff for one. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = contentDeps(app);

  // B1Admin's registrations page: every registration of the event with its members (staff).
  app.get(`${base}/event/:eventId`, { config: { access: staff }, schema: { params: EventParams, response: { 200: Registrations } } }, async (req) => {
    const { churchId } = req.auth;
    if (!(await findEvent(app.db, churchId, req.params.eventId))) throw notFound('Event');
    const rows = await registrationsOfEvent(app.db, churchId, req.params.eventId);
    const members = byRegistration(await membersOf(app.db, churchId, rows.map((r) => r.id)));
    return rows.map((r) => registrationDetail(r, { members: members.get(r.id) ?? [] }));
  });

  // Public (B1App's register page runs signed out): how many places are taken, of an event of the church.
  app.get(`${base}/event/:eventId/count`, { config: { access: 'public' }, schema: { params: EventParams, querystring: ChurchQuery, response: { 200: RegistrationCount } } }, async (req) => {
    if (!(await findEvent(app.db, req.query.churchId, req.params.eventId))) throw notFound('Event');
    return { count: await countActive(app.db, req.query.churchId, req.params.eventId) };
  });

  // B1App's My registrations and Me screens: a person's registrations with their events (their own, or staff).
  app.get(`${base}/person/:personId`, { config: { access: anyUser }, schema: { params: PersonParams, response: { 200: Registrations } } }, async (req) => {
    const { churchId } = req.auth;
    if (req.params.personId !== req.auth.personId && !isStaff(actorOf(req))) throw unauthorized('Missing permission: Content.Edit or own registrations');
    const rows = await registrationsOfPerson(app.db, churchId, req.params.personId);
    const members = byRegistration(await membersOf(app.db, churchId, rows.map((r) => r.id)));
    const events = new Map((await eventsByIds(app.db, churchId, rows.map((r) => r.eventId))).map((e) => [e.id, e]));
    return rows.map((r) => registrationDetail(r, { members: members.get(r.id) ?? [], event: events.get(r.eventId) ?? null }));
  });

  app.get(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Registration } } }, async (req) => {
    const row = await ownOrStaff(deps, actorOf(req), req.params.id);
    const { churchId } = req.auth;
    return registrationDetail(row, {
      members: await membersOf(app.db, churchId, [row.id]),
      choices: await choicesOf(app.db, churchId, row.id),
      payments: await paymentsOf(app.db, churchId, row.id),
      event: (await findEvent(app.db, churchId, row.eventId)) ?? null,
    });
  });

  // B1App's My registrations edit (apiPut): members and extras replaced, the total computed again.
  app.put(`${base}/:id`, { config: { access: anyUser }, schema: { params: IdParams, body: RegistrationEdit, response: { 200: Registration } } }, async (req) => {
    const actor = actorOf(req);
    await checkReferences(req, [req.body], { formSubmissionId: REMOTE.formSubmissions });
    const saved = await editRegistration(deps, actor, await ownOrStaff(deps, actor, req.params.id), req.body);
    return registrationDetail(saved.registration, { members: saved.members, choices: saved.choices });
  });

  app.post(`${base}/:id/cancel`, { config: { access: anyUser }, schema: { params: IdParams, response: { 200: Registration } } }, async (req) => {
    const actor = actorOf(req);
    return registrationDetail(await cancel(deps, actor, await ownOrStaff(deps, actor, req.params.id)));
  });

  app.post(`${base}/:id/promote`, { config: { access: staff }, schema: { params: IdParams, response: { 200: Registration } } }, async (req) => {
    const row = await findRegistration(app.db, req.auth.churchId, req.params.id);
    if (!row) throw notFound('Registration');
    return registrationDetail(await promote(deps, actorOf(req), row));
  });

  app.delete(`${base}/:id`, { config: { access: staff }, schema: { params: IdParams, response: { 200: Empty } } }, async (req) => {
    const row = await findRegistration(app.db, req.auth.churchId, req.params.id);
    if (!row) throw notFound('Registration');
    await remove(deps, actorOf(req), row);
    return {};
  });
}
