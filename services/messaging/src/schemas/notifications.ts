import { z } from 'zod';
import { Id } from '@church/common';
import { isTimeZone } from '@church/common';
import { CLOCK } from '../domain/quiet-hours';
import { ContentId, ContentType, Stamp, Text } from './common';

export const Notification = z.object({
  id: z.string(),
  churchId: z.string(),
  personId: z.string(),
  contentType: Text,
  contentId: Text,
  timeSent: Stamp,
  isNew: z.boolean(),
  message: z.string(),
  link: Text,
  deliveryMethod: Text,
  triggeredByPersonId: Text,
  emailedAt: Stamp.nullable(),
});

export const SaveNotification = z.object({
  id: Id.optional(),
  personId: Id,
  contentType: ContentType.nullish(),
  contentId: ContentId.nullish(),
  message: z.string().trim().min(1).max(2000),
  link: z.string().max(2000).nullish(),
  isNew: z.boolean().optional(),
  deliveryMethod: z.string().max(50).nullish(),
});

/** B1Admin sends an empty `peopleIds` when the only member of a group is the sender: nobody to notify, not an error. */
export const CreateMany = z.object({
  peopleIds: z.array(Id).max(5000),
  contentType: ContentType.nullish(),
  contentId: ContentId.nullish(),
  message: z.string().trim().min(1).max(2000),
  link: z.string().max(2000).nullish(),
});

export const Ping = z.object({
  churchId: Id,
  personId: Id,
  contentType: ContentType.nullish(),
  contentId: ContentId.nullish(),
  message: z.string().trim().min(1).max(2000),
  triggeredByPersonId: Id.nullish(),
});

/**
 * `count` (the spec's): every unread notification; `notificationCount` and `pmCount`, as the apps' badges read them:
 * the unread notifications that are not about a private message, and the private conversations waiting for the caller.
 */
export const UnreadCounts = z.object({ count: z.number(), notificationCount: z.number(), pmCount: z.number() });
export const Marked = z.object({ marked: z.number() });
export const Removed = z.object({ removed: z.number() });
export const SendTest = z.object({ personId: Id, title: z.string().trim().min(1).max(200) });
export const SendTestAnswer = z.object({ devices: z.number(), sent: z.number() });
export const Queued = z.object({ queued: z.boolean() });

export const NotificationPreferences = z.object({
  id: z.string(),
  churchId: z.string(),
  personId: z.string(),
  allowPush: z.boolean(),
  emailFrequency: z.string(),
  masterMute: z.boolean(),
  quietHoursStart: Text,
  quietHoursEnd: Text,
  timeZone: Text,
});
const Clock = z.string().trim().regex(CLOCK, 'must be a time HH:MM (24-hour)');
/** B1App's notification settings send every field, `null` (or `""`) for none. */
export const SavePreferences = z.object({
  id: Id.optional(),
  personId: Id.optional(),
  allowPush: z.boolean().optional(),
  emailFrequency: z.enum(['never', 'individual', 'daily']).optional(),
  masterMute: z.boolean().optional(),
  quietHoursStart: Clock.nullish(),
  quietHoursEnd: Clock.nullish(),
  timeZone: z.string().trim().max(64).refine(isTimeZone, 'must be a time zone such as America/Chicago').nullish(),
});
