import { z } from 'zod';
import { Id } from '@church/common';

export const ConversationKey = z.string().trim().min(1).max(100);
export const SocketId = z.string().trim().min(1).max(100);

export const Register = z.object({
  churchId: Id,
  conversationId: ConversationKey,
  socketId: SocketId,
  displayName: z.string().trim().max(200).nullish(),
  personId: Id.nullish(),
});
export const SetName = z.object({ socketId: SocketId, name: z.string().trim().min(1).max(200) });
export const AlertBody = z.object({ churchId: Id, personId: Id });

/** A registration as shown: the socket id (a capability: it can drop or rename the connection) to chat hosts only. */
export const ConnectionView = z.object({
  churchId: z.string(),
  conversationId: z.string(),
  displayName: z.string().nullable(),
  personId: z.string().nullable(),
  socketId: z.string().optional(),
});
export const Sent = z.object({ sent: z.boolean() });
