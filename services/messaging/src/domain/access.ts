import { hasPermission, type Claims } from '@church/auth';
import { unauthorized, type DbOrTx } from '@church/common';
import { pairsOfConversations } from '../repos/private-messages';

/**
 * Person-note conversation types and the permission each needs (spec: Conversations, access rule). A `Map`: the
 * type is the caller's string, and `constructor` or `__proto__` must find nothing (a plain object would answer its
 * prototype's function).
 */
const NOTE_PERMISSION = new Map<string, string>([
  ['person', 'People.Edit'],
  ['personConfidential', 'People.View Confidential Notes'],
]);

export const isPersonNote = (contentType: string | null | undefined) => !!contentType && NOTE_PERMISSION.has(contentType);

/** Whether the caller may open a conversation of this type: person notes need the notes permission of the membership API. */
export function canSeeConversation(auth: Claims | null | undefined, contentType: string | null | undefined): boolean {
  const permission = contentType ? NOTE_PERMISSION.get(contentType) : undefined;
  if (!permission) return true;
  return !!auth && hasPermission(auth, permission, 'MembershipApi');
}

/**
 * Gate of every read and write of a conversation (public routes included): person notes need the notes
 * permission of the membership API from the caller's token; other types pass.
 */
export function assertConversationAccess(auth: Claims | null | undefined, contentType: string | null | undefined): void {
  if (!canSeeConversation(auth, contentType)) throw unauthorized(`Missing permission: ${NOTE_PERMISSION.get(contentType!)}`);
}

/** Person-note reads also need a token of the conversation's own church (the public routes name any church). */
export function assertNoteChurch(auth: Claims | null | undefined, conv: { churchId: string; contentType: string }): void {
  if (isPersonNote(conv.contentType) && auth?.churchId !== conv.churchId) throw unauthorized('Missing permission');
}

/**
 * The conversation types `assertConversationAccess` refuses this caller, for a statement that applies the rule
 * itself (asked without throwing: a public caller is refused both note types on every post).
 */
export const deniedConversationTypes = (auth: Claims | null | undefined): string[] => [...NOTE_PERMISSION.keys()].filter((type) => !canSeeConversation(auth, type));

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

/** The conversation type of private messages: open to its two people only. */
export const PRIVATE_TYPE = 'privateMessage';

/**
 * Of these conversations, the ids of the private ones the caller may not open: a private conversation whose pair
 * is known (a `privatemessages` row) is open only to its two people (from a token of its church), whatever their
 * permissions. One not paired yet stays open: clients create the conversation, and may post its first message,
 * before they save the pair.
 */
async function closedPrivate(db: DbOrTx, auth: Claims | null | undefined, convs: Array<{ id: string; churchId: string; contentType: string }>): Promise<Set<string>> {
  const priv = convs.filter((c) => c.contentType === PRIVATE_TYPE);
  if (!priv.length) return new Set();
  const pairs = await pairsOfConversations(db, priv);
  const paired = new Set(pairs.map((r) => r.conversationId));
  const me = auth?.personId;
  const open = new Set(pairs.filter((r) => me && r.churchId === auth!.churchId && (r.fromPersonId === me || r.toPersonId === me)).map((r) => r.conversationId));
  return new Set(priv.filter((c) => paired.has(c.id) && !open.has(c.id)).map((c) => c.id));
}

/** 401 unless the caller may open this conversation when it is a private one (one of its two people). */
export async function assertPrivateAccess(db: DbOrTx, auth: Claims | null | undefined, conv: { id: string; churchId: string; contentType: string }): Promise<void> {
  if ((await closedPrivate(db, auth, [conv])).size) throw unauthorized('Only the two people of a private conversation may open it');
}

/** These conversations without the private ones the caller is not part of. */
export async function withoutClosedPrivate<T extends { id: string; churchId: string; contentType: string }>(db: DbOrTx, auth: Claims | null | undefined, convs: T[]): Promise<T[]> {
  const closed = await closedPrivate(db, auth, convs);
  return closed.size ? convs.filter((c) => !closed.has(c.id)) : convs;
}

/** Every gate of a read of one conversation: note permission, the note's church, a private conversation's pair. */
export async function assertMayRead(db: DbOrTx, auth: Claims | null | undefined, conv: { id: string; churchId: string; contentType: string }): Promise<void> {
  assertConversationAccess(auth, conv.contentType);
  assertNoteChurch(auth, conv);
  await assertPrivateAccess(db, auth, conv);
}
