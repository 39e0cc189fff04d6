import { z } from 'zod';
import { isTimeZone } from '@church/common';
import { MAX_OFFSET_MINUTES } from '../domain/reminders';
import { Stamp, Text } from './common';

const CHANNELS = ['push', 'email', 'in_app'] as const;

/** A list the apps write as an array or as comma-separated text (`"1440,0"`, `["push","email"]`). */
const listOf = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : typeof v === 'number' ? [v] : v), z.array(item));

const Offset = z.coerce.number().int().min(0).max(MAX_OFFSET_MINUTES);
/** Minutes before the day's send time, each at most two weeks, at most five, kept largest first. */
const Offsets = listOf(Offset)
  .refine((l) => l.length > 0, 'must name at least one time')
  .refine((l) => new Set(l).size <= 5, 'at most five times')
  .transform((l) => [...new Set(l)].sort((a, b) => b - a).join(','));
/** `HH:MM` or `HH:MM:SS`, kept as `HH:MM:SS`. */
const ClockTime = z
  .string()
  .trim()
  .regex(/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/, 'must be a time of day such as 09:00')
  .transform((t) => (t.length === 5 ? `${t}:00` : t));
const TimeZone = z.string().trim().max(64).refine(isTimeZone, 'must be a time zone such as America/Chicago');

/** A reminder as B1Admin's and B1App's reminder editors send it. */
export const SaveReminder = z.object({
  offsets: Offsets,
  sendLocalTime: ClockTime.default('09:00:00'),
  message: z.string().trim().max(1000).nullish(),
  /** no channel: in the app only */
  channels: listOf(z.enum(CHANNELS))
    .default(['push', 'email'])
    .transform((l) => [...new Set(l)].join(',') || 'in_app'),
  recipientMode: z.string().trim().max(40).nullish(),
  enabled: z.boolean().default(true),
  timeZone: TimeZone.nullish(),
});
export type SaveReminder = z.output<typeof SaveReminder>;

/** A reminder as the editors read it back (`offsets` and `channels` comma-separated, `sendLocalTime` `HH:MM:SS`). */
export const Reminder = z.object({
  id: z.string(),
  churchId: z.string(),
  entityType: z.string(),
  entityId: Text,
  scopeId: Text,
  offsets: z.string(),
  sendLocalTime: z.string(),
  timeZone: Text,
  message: Text,
  channels: z.string(),
  recipientMode: Text,
  enabled: z.boolean(),
  dateCreated: Stamp,
  dateModified: Stamp,
});
export const Reminders = z.array(Reminder);

/** What B1Admin's event reminder editor asks before saving: who, and when the next ones go. */
export const PreviewQuery = z.object({
  recipientMode: z.string().trim().max(40).optional(),
  offsets: z.string().max(200).optional(),
  sendLocalTime: ClockTime.optional(),
  timeZone: TimeZone.optional(),
});
export const ReminderPreview = z.object({
  recipientMode: z.string(),
  recipientCount: z.number().int(),
  /** whose reminder it is: the event's group, its registrants, or none (no such event) */
  scope: z.enum(['group', 'registrants', 'none']),
  unlinkedAttendeeCount: z.number().int(),
  /** the next sends (at most five), ISO instants */
  nextFires: z.array(z.string()),
});
