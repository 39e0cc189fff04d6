import { z } from 'zod';
import { Id } from '@church/common';
import { Stamp, Text } from './common';

export const EmailTemplate = z.object({
  id: z.string(),
  churchId: z.string(),
  name: z.string(),
  subject: z.string(),
  htmlContent: z.string(),
  category: Text,
  dateCreated: Stamp,
  dateModified: Stamp,
});

export const SaveTemplate = z.object({
  id: Id.optional(),
  name: z.string().trim().min(1).max(200),
  subject: z.string().max(500).default(''),
  htmlContent: z.string().max(500_000).default(''),
  category: z.string().trim().max(100).nullish(),
});

export const SendEmail = z.object({
  groupId: Id,
  subject: z.string().trim().min(1).max(500),
  htmlContent: z.string().min(1).max(500_000),
  templateId: Id.optional(),
});

const Recipient = z.object({ personId: z.string(), displayName: z.string().nullable(), email: z.string().nullable() });
export const EmailPreview = z.object({
  totalMembers: z.number(),
  eligibleCount: z.number(),
  noEmailCount: z.number(),
  recipients: z.array(Recipient),
  noEmail: z.array(Recipient.omit({ email: true })),
});

/** The spec's group email result (`successCount`: mails handed to the mail queue, which retries them). */
export const GroupEmailResult = z.object({ totalMembers: z.number(), recipientCount: z.number(), successCount: z.number(), failCount: z.number(), noEmailCount: z.number() });
