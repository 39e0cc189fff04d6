import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Email, Empty, Id, badRequest, escapeHtml, notFound, type ZodTypeProvider } from '@church/common';
import { churchExists, loadOrCreatePerson } from '../../domain/people-save';
import type { PersonRecord } from '../../domain/person';
import { emailsOf, personById } from '../../repos/people';
import { BASE } from './schemas';

const Name = z.string().trim().max(100).optional();

/** What a public caller learns about a person: never their address, phones or dates. */
const PublicPerson = z.object({
  id: z.string(),
  name: z.object({ first: z.string().nullish(), last: z.string().nullish(), display: z.string().nullish() }),
  contactInfo: z.object({ email: z.string().nullish() }),
  membershipStatus: z.string().nullish(),
});
const toPublicPerson = (p: PersonRecord) => ({
  id: p.id,
  name: { first: p.firstName, last: p.lastName, display: p.displayName },
  contactInfo: { email: p.email },
  membershipStatus: p.membershipStatus,
});

const PublicEmail = z.object({
  churchId: Id,
  personId: Id,
  subject: z.string().trim().min(1, 'subject is required').max(200),
  body: z.string().trim().min(1, 'body is required').max(10_000),
  appName: z.string().trim().max(100).optional(),
});

export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.post(
    `${BASE}/loadOrCreate`,
    { config: { access: 'public' }, schema: { body: z.object({ churchId: Id, email: Email, firstName: Name, lastName: Name }), response: { 200: PublicPerson } } },
    async (req) => {
      const { churchId, ...person } = req.body;
      if (!(await churchExists(app.db, churchId))) throw notFound('Church');
      return toPublicPerson(await loadOrCreatePerson(app.db, churchId, person));
    },
  );

  // Public senders write plain text: it is escaped, so a contact form cannot mail arbitrary HTML.
  app.post(`${BASE}/public/email`, { config: { access: 'public' }, schema: { body: PublicEmail, response: { 200: Empty } } }, async (req) => {
    const { churchId, personId, subject, body, appName } = req.body;
    const person = await personById(app.db, churchId, personId);
    if (!person) throw notFound('Person');
    if (!person.email) throw badRequest('personId', 'this person has no email address');
    const footer = appName ? `<p style="color:#666">Sent through ${escapeHtml(appName)}</p>` : '';
    await app.deps.queue.enqueue('membership.email', { to: person.email, subject, html: `<p>${escapeHtml(body).replace(/\r?\n/g, '<br>')}</p>${footer}` });
    return {};
  });

  app.post(
    `${BASE}/apiEmails`,
    {
      config: { access: 'internal' },
      schema: { body: z.object({ churchId: Id, personIds: z.array(Id).max(5000) }), response: { 200: z.array(z.object({ id: z.string(), email: z.string().nullable() })) } },
    },
    (req) => emailsOf(app.db, req.body.churchId, [...new Set(req.body.personIds)]),
  );
}
