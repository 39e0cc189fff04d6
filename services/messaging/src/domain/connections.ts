import type { z } from 'zod';
import type { Claims } from '@church/auth';
import { Id, badRequest, type Actor } from '@church/common';
import type { MessagingDeps } from '../deps';
import type { Connection } from '../realtime/store';
import { findConversation } from '../repos/conversations';
import type { Register } from '../schemas/connections';
import { assertConversationAccess, assertPrivateAccess } from './access';
import { doorbellKey } from './doorbell';

/** A content room of person notes (`content-person-<id>`): its `conversationActivity` tells of a person's notes. */
const NOTE_ROOM = /^content-(person|personConfidential)-/;

/**
 * A registration receives every message of its conversation, so it is a read of it: a person-note conversation
 * (or a person-note content room) of the church is gated as every other read (the notes permission, from a token
 * of that church), a paired private one to its two people. Keys that are not conversations of the church (`alerts`,
 * a service id) pass.
 */
export async function assertMayListen(deps: Pick<MessagingDeps, 'db'>, auth: Claims | null | undefined, churchId: string, conversationId: string): Promise<void> {
  const ofChurch = auth?.churchId === churchId ? auth : null;
  const room = NOTE_ROOM.exec(conversationId);
  if (room) return assertConversationAccess(ofChurch, room[1]);
  if (!Id.safeParse(conversationId).success) return;
  const conv = await findConversation(deps.db, churchId, conversationId);
  if (!conv) return;
  assertConversationAccess(ofChurch, conv.contentType);
  await assertPrivateAccess(deps.db, auth, conv);
}

/**
 * Registers open sockets on conversations (public: a token only proves who is listening), then tells each
 * conversation once who is there. A person is named only by a token of that person: a public caller cannot listen
 * in as someone else. An unproven person's `alerts` registration (the apps make it without a token) listens at
 * their doorbell. A socket id no open socket has is a 400 naming its item.
 */
export async function registerConnections(
  deps: Pick<MessagingDeps, 'db' | 'providers'>,
  actor: Actor | null,
  ip: string,
  items: Array<z.output<typeof Register>>,
  param: (i: number, field: string) => string,
): Promise<Connection[]> {
  const { realtime } = deps.providers;
  const saved: Connection[] = [];
  for (const [i, item] of items.entries()) {
    await assertMayListen(deps, actor, item.churchId, item.conversationId);
    const personId = item.personId && actor && actor.churchId === item.churchId && actor.personId === item.personId ? item.personId : null;
    const conversationId = !personId && item.personId && item.conversationId === 'alerts' ? doorbellKey(item.personId) : item.conversationId;
    const conn: Connection = { churchId: item.churchId, conversationId, socketId: item.socketId, displayName: item.displayName ?? null, personId, ipAddress: ip };
    if (!(await realtime.register(conn))) throw badRequest(param(i, 'socketId'), 'no open socket has this id');
    saved.push(conn);
  }
  const seen = new Set<string>();
  for (const c of saved) {
    const key = `${c.churchId}|${c.conversationId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    await realtime.attendance(c.churchId, c.conversationId);
  }
  return saved;
}
