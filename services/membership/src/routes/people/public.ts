import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { Email, Empty, Id, badRequest, emailOf, escapeHtml, notFound, optionalActorOf, systemActor, type Actor, type ZodTypeProvider } from '@church/common';
import { loadOrCreatePerson, registerGuests } from '../../domain/people/save';
import { churchExists } from '../../repos/churches';
import { emailsOf, personById, type PersonRecord } from '../../repos/people';
import { BASE } from '../../schemas/people';
import { GuestMember, Name, PublicPerson, PublicEmail } from '../../schemas/people/public';


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
    (req) => registerGuests(app.deps, visitorOf(req, req.body.churchId), req.body.churchId, req.body.members),
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
