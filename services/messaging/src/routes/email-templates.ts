import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { hasPermission, requires, type Claims } from '@church/auth';
import { Id, IdParams, batchOf, getRow, deleteRow, providerMessage, unauthorized, type ZodTypeProvider } from '@church/common';
import { messaging } from '../app';
import { emailTemplates } from '../db/schema';
import { mergeFields } from '../domain/merge';
import { writeLog } from '../domain/notify';
import { churchName, contacts } from '../domain/people';
import { htmlToText } from '../domain/text';

/** Staff who write to groups, and group leaders (to their own groups). */
const writers = requires('People.Edit or Groups.Edit or Group Leader');

const SaveTemplate = z.object({
  id: Id.optional(),
  name: z.string().trim().min(1).max(200),
  subject: z.string().max(500).default(''),
  htmlContent: z.string().max(500_000).default(''),
  category: z.string().trim().max(100).nullish(),
});

const Send = z.object({
  groupId: Id,
  subject: z.string().trim().min(1).max(500),
  htmlContent: z.string().min(1).max(500_000),
  templateId: Id.optional(),
});

function assertMayWriteTo(auth: Claims, groupId: string) {
  if (hasPermission(auth, 'People.Edit') || hasPermission(auth, 'Groups.Edit') || auth.leaderGroupIds.includes(groupId)) return;
  throw unauthorized('Missing permission: People.Edit, Groups.Edit or leader of this group');
}

/** `/messaging/emailTemplates` and group email. */
export default async function routes(root: FastifyInstance): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const deps = () => messaging.deps(app);

  app.get('/messaging/emailTemplates', { config: { access: writers } }, async (req) =>
    app.db.select().from(emailTemplates).where(eq(emailTemplates.churchId, req.auth.churchId)).orderBy(asc(emailTemplates.name)),
  );

  app.get('/messaging/emailTemplates/preview/:groupId', { config: { access: writers }, schema: { params: z.object({ groupId: Id }) } }, async (req) => {
    assertMayWriteTo(req.auth, req.params.groupId);
    const members = await contacts(deps(), req.auth.churchId, { groupId: req.params.groupId });
    const withEmail = members.filter((m) => m.email);
    return {
      totalMembers: members.length,
      eligibleCount: withEmail.length,
      noEmailCount: members.length - withEmail.length,
      recipients: withEmail.map((m) => ({ personId: m.id, displayName: m.displayName, email: m.email })),
      noEmail: members.filter((m) => !m.email).map((m) => ({ personId: m.id, displayName: m.displayName })),
    };
  });

  app.get('/messaging/emailTemplates/:id', { config: { access: writers }, schema: { params: IdParams } }, async (req) => getRow(app.db, emailTemplates, req.auth.churchId, req.params.id, 'Email template'));

  app.post('/messaging/emailTemplates', { config: { access: writers }, schema: { body: batchOf(SaveTemplate) } }, async (req) =>
    app.db.transaction(async (tx) => {
      const out = [];
      for (const item of req.body) {
        const { id, ...values } = item;
        if (id) {
          await getRow(tx, emailTemplates, req.auth.churchId, id, 'Email template');
          out.push((await tx.update(emailTemplates).set({ ...values, dateModified: new Date() }).where(and(eq(emailTemplates.churchId, req.auth.churchId), eq(emailTemplates.id, id))).returning())[0]!);
        } else {
          out.push((await tx.insert(emailTemplates).values({ id: randomUUID(), churchId: req.auth.churchId, ...values }).returning())[0]!);
        }
      }
      return out;
    }),
  );

  app.delete('/messaging/emailTemplates/:id', { config: { access: writers }, schema: { params: IdParams } }, async (req) => {
    await deleteRow(app.db, emailTemplates, req.auth.churchId, req.params.id);
    return {};
  });

  app.post('/messaging/emailTemplates/send', { config: { access: writers }, schema: { body: Send } }, async (req) => {
    const churchId = req.auth.churchId;
    assertMayWriteTo(req.auth, req.body.groupId);
    const d = deps();
    const members = await contacts(d, churchId, { groupId: req.body.groupId });
    const name = await churchName(d, churchId);
    const seen = new Set<string>();
    const recipients = members.filter((m) => {
      const email = m.email?.trim().toLowerCase();
      if (!email || seen.has(email)) return false;
      seen.add(email);
      return true;
    });
    let successCount = 0;
    let failCount = 0;
    for (const person of recipients) {
      const values = { firstName: person.firstName, lastName: person.lastName, displayName: person.displayName, email: person.email, churchName: name };
      const html = mergeFields(req.body.htmlContent, values);
      const subject = mergeFields(req.body.subject, values, false);
      const log = { churchId, personId: person.id, channel: 'email' as const, recipient: person.email, provider: d.mailer.kind, contentType: 'group', contentId: req.body.groupId };
      try {
        await d.mailer.send({ to: person.email!, subject, html, text: htmlToText(html) });
        successCount++;
        await writeLog(d, { ...log, status: 'sent' });
      } catch (err) {
        failCount++;
        await writeLog(d, { ...log, status: 'failed', error: providerMessage(err) });
      }
    }
    return { totalMembers: members.length, recipientCount: recipients.length, successCount, failCount, noEmailCount: members.filter((m) => !m.email).length };
  });
}
