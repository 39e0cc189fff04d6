import { hasPermission, type Claims } from '@church/auth';
import { unauthorized } from '@church/common';

/** Person-note conversation types and the permission each needs (spec: Conversations, access rule). */
const NOTE_PERMISSION: Record<string, string> = {
  person: 'People.Edit',
  personConfidential: 'People.View Confidential Notes',
};

export const isPersonNote = (contentType: string | null | undefined) => !!contentType && contentType in NOTE_PERMISSION;

/** Whether the caller may open a conversation of this type: person notes need the notes permission of the membership API. */
export function canSeeConversation(auth: Claims | null | undefined, contentType: string | null | undefined): boolean {
  if (!contentType || !(contentType in NOTE_PERMISSION)) return true;
  return !!auth && hasPermission(auth, NOTE_PERMISSION[contentType]!, 'MembershipApi');
}

/**
 * Gate of every read and write of a conversation (public routes included): person notes need the notes
 * permission of the membership API from the caller's token; other types pass.
 */
export function assertConversationAccess(auth: Claims | null | undefined, contentType: string | null | undefined): void {
  if (!canSeeConversation(auth, contentType)) throw unauthorized(`Missing permission: ${NOTE_PERMISSION[contentType!]}`);
}

/**
 * The conversation types `assertConversationAccess` refuses this caller, for a statement that applies the rule
 * itself (asked without throwing: a public caller is refused both note types on every post).
 */
export const deniedConversationTypes = (auth: Claims | null | undefined): string[] => Object.keys(NOTE_PERMISSION).filter((type) => !canSeeConversation(auth, type));

/** Staff who may act on other people's records of this module. */
export const isStaff = (auth: Claims, ...permissions: string[]) => permissions.some((p) => hasPermission(auth, p, 'MessagingApi'));

/** The caller is the person, or holds one of the permissions; otherwise 401. */
export function assertSelfOr(auth: Claims, personId: string | null | undefined, ...permissions: string[]): void {
  if (personId && auth.personId === personId) return;
  if (isStaff(auth, ...permissions)) return;
  throw unauthorized(`Missing permission: own record or ${permissions.join(' or ')}`);
}

/** The caller's display name from the token. */
export function displayNameOf(auth: Claims | null | undefined): string | null {
  if (!auth) return null;
  const name = [auth.firstName, auth.lastName].filter(Boolean).join(' ').trim();
  return name || null;
}
