import { emailOf } from '@church/common';
import type { MessagingDeps } from '../deps';
import { churchName, contacts } from '../clients/membership';
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
