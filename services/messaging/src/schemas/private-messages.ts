import { z } from 'zod';
import { Id, IdParams } from '@church/common';
import { MessageText, Stamp, Text } from './common';
import { Conversation } from './conversations';
import { Message } from './messages';

export const SavePrivate = z.object({
  id: Id.optional(),
  toPersonId: Id,
  conversationId: Id.nullish(),
  content: MessageText.min(1).optional(),
  displayName: z.string().trim().max(200).nullish(),
  deliveryMethod: z.string().max(50).nullish(),
});

/** A pair's private conversation with its last message (`conversation.messages`), as the inboxes read it. */
export const PrivateMessage = z.object({
  id: z.string(),
  churchId: z.string(),
  conversationId: z.string(),
  fromPersonId: z.string(),
  toPersonId: z.string(),
  /** who has not read its last message */
  notifyPersonId: Text,
  deliveryMethod: Text,
  updatedAt: Stamp,
  conversation: Conversation.extend({ messages: z.array(Message) }).nullable(),
});
export const PrivateMessages = z.array(PrivateMessage);
/** `GET /existing/:personId`: the caller's conversation with that person, or `{}` when they have none. */
export const ExistingPrivateMessage = PrivateMessage.partial();
export const OtherPersonParams = z.object({ personId: IdParams.shape.id });
