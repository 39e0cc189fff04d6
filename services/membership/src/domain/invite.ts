import { badRequest, emailOf, escapeHtml, notFound, type Db } from '@church/common';
import type { MembershipDeps } from '../deps';
import { findChurch } from '../repos/churches';
import { personByEmail } from '../repos/people';
import { findUserByEmail, updateUser } from '../repos/users';
import { WELCOME_GUID_SECONDS } from './account';
import { allowedAppUrl, appLink, appNameText } from './app-links';
import { secondsFromNow } from './clock';
import { randomSecret, sha256 } from './secrets';

export interface Invitation {
  email: string;
  /** what the person was added to (a group's or a role's name): plain text */
  contextName: string;
  appName?: string;
  appUrl?: string;
}

/**
 * `sendInviteEmail`: tells a person of the church that staff added them to a group or role, with the link that
 * fits their account. The address must be a live person's of the caller's church (this is no way to mail
 * anyone), and the names in the message are the church's and the person's as stored, not the caller's words;
 * only `contextName` comes from the caller (escaped). An account that has signed in before gets the sign-in
 * page; one that never has (made by a role assignment) gets a set-password link like a welcome link (24 hours,
 * replacing any earlier one); no account: the page to create one (`?action=register`).
 */
export async function sendInvite(db: Db, deps: MembershipDeps, churchId: string, invite: Invitation): Promise<void> {
  const person = await personByEmail(db, churchId, invite.email);
  if (!person) throw badRequest('email', 'No person of this church has this email');
  const church = await findChurch(db, churchId);
  if (!church) throw notFound('Church');
  const user = await findUserByEmail(db, invite.email);
  const base = await allowedAppUrl(db, deps.config, invite.appUrl);
  let link: string;
  let action: string;
  let guid: { authGuidHash: string; authGuidExpiresAt: Date } | undefined;
  if (user?.lastLogin) {
    link = appLink(base, 'login');
    action = 'Sign in';
  } else if (user) {
    const authGuid = randomSecret();
    const expiresAt = secondsFromNow(WELCOME_GUID_SECONDS);
    guid = { authGuidHash: sha256(authGuid), authGuidExpiresAt: expiresAt };
    link = appLink(base, 'login', authGuid, expiresAt);
    action = 'Choose your password (the link works for 24 hours)';
  } else {
    const url = new URL(appLink(base, 'login'));
    url.searchParams.set('action', 'register');
    link = url.toString();
    action = 'Create your account';
  }
  const churchName = escapeHtml(church.name);
  const context = escapeHtml(invite.contextName);
  const name = escapeHtml(person.nickName || person.firstName || person.displayName || '');
  // A new set-password guid and the message carrying it commit together.
  await db.transaction(async (tx) => {
    if (guid && user) await updateUser(tx, user.id, guid);
    await deps.queue.enqueue(
      emailOf('membership'),
      {
        to: invite.email,
        subject: `You have been added to ${context}`,
        html:
          `<p>Hello ${name},</p>` +
          `<p>You have been added to <strong>${context}</strong> at ${churchName}${invite.appName ? ` (${appNameText(invite.appName)})` : ''}.</p>` +
          `<p>${action}: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
      },
      { tx },
    );
  });
}
