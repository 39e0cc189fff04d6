import { cardNote, findRow, type Tx, type templateEmail } from '@church/common';
import { z } from 'zod';
import type { MessagingDeps } from '../deps';
import { churchName, contacts } from '../clients/membership';
import { emailTemplates } from '../db/schema';
import { writeLogs } from '../repos/delivery-logs';
import { servedOf } from '../repos/job-deliveries';
import { handMail } from './notify';
import { mergeFields } from './merge';
import { onceInTx } from './once';

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
      await handMail(deps, tx, { to: person.email!, subject: mergeFields(mail.subject, values, false), html: mergeFields(mail.htmlContent, values) });
    }
    await writeLogs(
      tx,
      recipients.map((person) => ({ churchId, personId: person.id, channel: 'email' as const, recipient: person.email, provider: 'mail queue', status: 'queued', contentType: 'group', contentId: mail.groupId })),
    );
  });
  return { totalMembers: members.length, recipientCount: recipients.length, successCount: recipients.length, failCount: 0, noEmailCount: members.filter((m) => !m.email).length };
}

const CARD_ID = z.uuid();

/**
 * `messaging.templateEmail` (doing's `sendEmail` step action): one of the church's templates to one person, merge
 * fields filled in as the group email fills them, the subject overridden when given. The mail, its delivery log, the
 * record that job `key` served the person (`domain/once.ts`: a second run of the job sends nothing) and, for a
 * workflow card (`contentType` `task`, `contentId` the card), the card's note (`doing.cardNote`: "Email sent to
 * <name>") are written in one transaction. A template that is not the church's, or a person without an address, sends
 * nothing: logged as skipped, and the card told why ("Email skipped: <reason>"). Membership away fails the job, which
 * is retried.
 */
export async function sendTemplateEmail(deps: MessagingDeps, job: z.output<typeof templateEmail.schema>, key: string): Promise<'queued' | 'skipped' | 'done before'> {
  const { churchId, personId } = job;
  const recipient = `email:${personId}`;
  if ((await servedOf(deps.db, key, [recipient])).size) return 'done before';
  const template = await findRow(deps.db, emailTemplates, churchId, job.templateId);
  const [person] = template ? await contacts(deps, churchId, { ids: [personId] }) : [];
  const about = { churchId, personId, channel: 'email' as const, provider: 'mail queue', contentType: job.contentType ?? 'template', contentId: job.contentId ?? job.templateId };
  const card = job.contentType === 'task' && CARD_ID.safeParse(job.contentId).success ? job.contentId! : null;
  const tellCard = (tx: Tx, note: string) => (card ? deps.queue.enqueue(cardNote, { churchId, cardId: card, note: note.slice(0, 500) }, { tx }) : Promise.resolve());
  if (!template || !person?.email) {
    const reason = template ? 'no email address' : 'no such template';
    const ran = await onceInTx(deps, key, recipient, async (tx) => {
      await writeLogs(tx, [{ ...about, recipient: person?.email ?? null, status: 'skipped', error: reason }]);
      await tellCard(tx, `Email skipped: ${reason}`);
    });
    return ran ? 'skipped' : 'done before';
  }
  const values = { firstName: person.firstName, lastName: person.lastName, displayName: person.displayName, email: person.email, churchName: await churchName(deps, churchId) };
  const ran = await onceInTx(deps, key, recipient, async (tx) => {
    const subject = mergeFields(job.subject ?? template.subject, values, false);
    await handMail(deps, tx, { to: person.email!, subject, html: mergeFields(template.htmlContent, values) });
    await writeLogs(tx, [{ ...about, recipient: person.email, status: 'queued' }]);
    await tellCard(tx, `Email sent to ${person.displayName || person.email}`);
  });
  return ran ? 'queued' : 'done before';
}
