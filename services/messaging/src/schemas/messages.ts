import { z } from 'zod';
import { Id } from '@church/common';
import { DisplayName, MessageText, Stamp, Text } from './common';

export const Message = z.object({
  id: z.string(),
  churchId: z.string(),
  conversationId: z.string(),
  personId: Text,
  displayName: Text,
  timeSent: Stamp,
  timeUpdated: Stamp.nullable(),
  content: z.string(),
  messageType: z.string(),
});

/** A message's reactions, one per emoji: how many people, and whether the caller is one of them. */
export const ReactionSummary = z.object({ emoji: z.string(), count: z.number(), mine: z.boolean() });
/** A message as the conversation screens read it (B1App's group chat shows its reactions). */
export const MessageWithReactions = Message.extend({ reactions: z.array(ReactionSummary) });

export const SaveMessage = z.object({
  id: Id.optional(),
  conversationId: Id,
  content: MessageText,
  messageType: z.string().trim().max(50).optional(),
  displayName: DisplayName.nullish(),
  personId: Id.nullish(),
});

export const SendMessage = z.object({
  /** a client-chosen id: a retry of the same message finds it instead of posting it twice */
  id: Id.optional(),
  churchId: Id,
  conversationId: Id,
  personId: Id.nullish(),
  displayName: DisplayName.nullish(),
  content: MessageText.min(1),
  messageType: z.string().trim().max(50).optional(),
});

export const Callout = z.object({ conversationId: z.string().trim().min(1).max(100), content: z.string().max(2000).default('') });
export const CalloutAnswer = z.object({ conversationId: z.string(), content: z.string() });

/** One emoji: a pictograph (with its modifiers and joiners), a flag or a keycap, never words. */
export const Emoji = z
  .string()
  .trim()
  .min(1)
  .max(32)
  .refine((s) => /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u.test(s) && !/[\p{L}\s<>]/u.test(s), 'must be an emoji');
export const ReactionBody = z.object({ emoji: Emoji });
export const ReactionAnswer = z.object({ messageId: z.string(), emoji: z.string(), added: z.boolean(), reactions: z.array(ReactionSummary) });
