import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { Email, Empty, HttpError, Id, badRequest, emailOf, escapeHtml, notFound, optionalActorOf, reportChanges, systemActor, type Actor, type ZodTypeProvider } from '@church/common';
import { loadOrCreatePerson, personChange } from '../../domain/people-save';
import { displayNameOf } from '../../domain/person';
import { churchExists, findChurch } from '../../repos/churches';
import { insertHousehold } from '../../repos/households';
import { emailsOf, insertPeople, personById, type PersonRecord } from '../../repos/people';
import { findSetting } from '../../repos/settings';
import { BASE } from '../../schemas/people';
import { GuestMember, Name, PublicPerson, PublicEmail } from '../../schemas/people/public';

/** The church setting (B1Admin's guest registration switch) that opens `guest-register`. */
export const GUEST_REGISTRATION_SETTING = 'enableQRGuestRegistration';


/** Who a public request acts for: its signed-in caller, else a visitor of the church known only by their address. */
const visitorOf = (req: FastifyRequest, churchId: string): Actor => optionalActorOf(req) ?? { ...systemActor(churchId, String(req.id), req.log), ip: req.ip };

const toPublicPerson = (p: PersonRecord) => ({
  id: p.id,
  name: { first: p.firstName, last: p.lastName, display: p.displayName },
  contactInfo: { email: p.email },
  membershipStatus: p.membershipStatus,
});

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.post(
    `${BASE}/loadOrCreate`,
    { config: { access: 'public' }, schema: { body: z.object({ churchId: Id, email: Email, firstName: Name, lastName: Name }), response: { 200: PublicPerson } } },
    async (req) => {
      const { churchId, ...person } = req.body;
      if (!(await churchExists(app.db, churchId))) throw notFound('Church');
      return toPublicPerson(await loadOrCreatePerson(app.db, churchId, person, { deps: app.deps, actor: visitorOf(req, churchId) }));
    },
  );

  // Public senders write plain text: it is escaped, so a contact form cannot mail arbitrary HTML.
  app.post(`${BASE}/public/email`, { config: { access: 'public' }, schema: { body: PublicEmail, response: { 200: Empty } } }, async (req) => {
    const { churchId, personId, subject, body, appName } = req.body;
    const person = await personById(app.db, churchId, personId);
    if (!person) throw notFound('Person');
    if (!person.email) throw badRequest('personId', 'this person has no email address');
    const footer = appName ? `<p style="color:#666">Sent through ${escapeHtml(appName)}</p>` : '';
    await app.deps.queue.enqueue(emailOf('membership'), { to: person.email, subject, html: `<p>${escapeHtml(body).replace(/\r?\n/g, '<br>')}</p>${footer}` });
    return {};
  });

  // B1App's guest registration page (a QR code at the door): a household of guests, the first its head. Only for
  // a church that switched it on (setting `enableQRGuestRegistration` = "true", public); answers names and ids only.
  app.post(
    `${BASE}/guest-register`,
    {
      config: { access: 'public' },
      schema: {
        body: z.object({ churchId: Id, members: z.array(GuestMember).min(1, 'At least one member is required').max(10, 'At most 10 members per registration') }),
        response: { 200: z.object({ householdId: z.string(), people: z.array(z.object({ id: z.string(), name: z.object({ first: z.string().nullable(), last: z.string().nullable() }) })) }) },
      },
    },
    async (req) => {
      const { churchId, members } = req.body;
      const church = await findChurch(app.db, churchId);
      if (!church || church.archivedDate) throw notFound('Church');
      const setting = await findSetting(app.db, churchId, GUEST_REGISTRATION_SETTING);
      if (setting?.value !== 'true') throw new HttpError(403, [{ msg: 'This church does not take guest registrations' }]);
      return app.db.transaction(async (tx) => {
        const household = await insertHousehold(tx, churchId, members[0]!.lastName);
        const rows = await insertPeople(
          tx,
          churchId,
          members.map((m, i) => ({
            id: randomUUID(),
            firstName: m.firstName,
            lastName: m.lastName,
            displayName: displayNameOf(m),
            email: m.email ?? null,
            mobilePhone: m.phone ?? null,
            membershipStatus: 'Guest',
            householdId: household.id,
            householdRole: i === 0 ? 'Head' : 'Other',
          })),
        );
        await reportChanges(
          app.deps,
          [
            { churchId, entityType: 'household', entityId: household.id, action: 'created', event: 'household.created', after: { name: household.name }, data: household },
            ...rows.map((row) => personChange(churchId, undefined, row)),
          ],
          { req, tx },
        );
        return { householdId: household.id, people: rows.map((p) => ({ id: p.id, name: { first: p.firstName, last: p.lastName } })) };
      });
    },
  );

  app.post(
    `${BASE}/apiEmails`,
    {
      config: { access: 'internal' },
      schema: { body: z.object({ churchId: Id, personIds: z.array(Id).max(5000) }), response: { 200: z.array(z.object({ id: z.string(), email: z.string().nullable() })) } },
    },
    (req) => emailsOf(app.db, req.body.churchId, [...new Set(req.body.personIds)]),
  );
}
