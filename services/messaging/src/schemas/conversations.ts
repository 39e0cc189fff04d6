import { z } from 'zod';
import { Id } from '@church/common';
import { ContentId, ContentType, MessageText, Stamp, Text } from './common';
import { Message, MessageWithReactions } from './messages';

export const Conversation = z.object({
  id: z.string(),
  churchId: z.string(),
  contentType: z.string(),
  contentId: z.string(),
  title: Text,
  dateCreated: Stamp,
  groupId: Text,
  visibility: Text,
  allowAnonymousPosts: z.boolean(),
  firstPostId: Text,
  lastPostId: Text,
  postCount: z.number(),
});

/** With its first and last messages: as `firstPost`/`lastPost`, and as `messages` (the open-source API's form). */
export const ConversationWithPosts = Conversation.extend({ firstPost: Message.nullable(), lastPost: Message.nullable(), messages: z.array(Message) });

/** With a page of its messages (newest first) and their reactions. */
export const ConversationWithMessages = Conversation.extend({ messages: z.array(MessageWithReactions), page: z.number(), limit: z.number() });

export const SaveConversation = z.object({
  id: Id.optional(),
  contentType: ContentType,
  contentId: ContentId,
  title: z.string().max(500).nullish(),
  groupId: Id.nullish(),
  visibility: z.string().max(50).nullish(),
  allowAnonymousPosts: z.boolean().optional(),
});

export const Start = z.object({
  groupId: Id.nullish(),
  contentType: ContentType,
  contentId: ContentId,
  title: z.string().max(500).nullish(),
  comment: MessageText.min(1),
  visibility: z.string().max(50).nullish(),
});
