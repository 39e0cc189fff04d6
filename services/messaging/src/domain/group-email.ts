import { emailOf, findRow, type templateEmail } from '@church/common';
import type { z } from 'zod';
import type { MessagingDeps } from '../deps';
import { churchName, contacts } from '../clients/membership';
import { emailTemplates } from '../db/schema';
import { writeLogs } from '../repos/delivery-logs';
import { mergeFields } from './merge';

/**
 * Email to a group's members (`POST /emailTemplates/send`): one per address, merge fields filled in per person (HTML
 * escaped in the body, plain in the subject), each handed to the mail job with its delivery log (`queued`) in one
 * transaction. The mail job retries a failing provider for about an hour; the answer counts what was queued.
 */
export async function sendGroupEmail(deps: MessagingDeps, churchId: string, mail: { groupId: string; subject: string; htmlContent: string }) {
  const members = await contacts(deps, churchId, { groupId: mail.groupId });
  const name = await churchName(deps, churchId);
  const seen = new Set<string>();
  const recipients = members.filter((m) => {
    const email = m.email?.trim().toLowerCase();
    if (!email || seen.has(email)) return false;
    seen.add(email);
    return true;
  });
  await deps.db.transaction(async (tx) => {
    for (const person of recipients) {
      const values = { firstName: person.firstName, lastName: person.lastName, displayName: person.displayName, email: person.email, churchName: name };
      await deps.queue.enqueue(emailOf('messaging'), { to: person.email!, subject: mergeFields(mail.subject, values, false), html: mergeFields(mail.htmlContent, values) }, { tx });
    }
    await writeLogs(
      tx,
      recipients.map((person) => ({ churchId, personId: person.id, channel: 'email' as const, recipient: person.email, provider: 'mail queue', status: 'queued', contentType: 'group', contentId: mail.groupId })),
    );
  });
  return { totalMembers: members.length, recipientCount: recipients.length, successCount: recipients.length, failCount: 0, noEmailCount: members.filter((m) => !m.email).length };
}

/**
 * `messaging.templateEmail` (doing's `sendEmail` step action): one of the church's templates to one person, merge
 * fields filled in as the group email fills them, the subject overridden when given. The mail and its delivery log
 * are written in one transaction; a template that is not the church's, or a person without an address, sends
 * nothing and is logged as skipped (membership away fails the job, which is retried).
 */
export async function sendTemplateEmail(deps: MessagingDeps, job: z.output<typeof templateEmail.schema>): Promise<'queued' | 'skipped'> {
  const { churchId, personId } = job;
  const template = await findRow(deps.db, emailTemplates, churchId, job.templateId);
  const [person] = template ? await contacts(deps, churchId, { ids: [personId] }) : [];
  const about = { churchId, personId, channel: 'email' as const, provider: 'mail queue', contentType: job.contentType ?? 'template', contentId: job.contentId ?? job.templateId };
  if (!template || !person?.email) {
    await writeLogs(deps.db, [{ ...about, recipient: person?.email ?? null, status: 'skipped', error: template ? 'no email address' : 'no such template' }]);
    return 'skipped';
  }
  const values = { firstName: person.firstName, lastName: person.lastName, displayName: person.displayName, email: person.email, churchName: await churchName(deps, churchId) };
  await deps.db.transaction(async (tx) => {
    const subject = mergeFields(job.subject ?? template.subject, values, false);
    await deps.queue.enqueue(emailOf('messaging'), { to: person.email!, subject, html: mergeFields(template.htmlContent, values) }, { tx });
    await writeLogs(tx, [{ ...about, recipient: person.email, status: 'queued' }]);
  });
  return 'queued';
}
