import { z } from 'zod';
import { IsoDate } from '@church/common';
import { Stamp, Text } from './common';

export const DeliveryLog = z.object({
  id: z.string(),
  churchId: z.string(),
  personId: Text,
  contentType: Text,
  contentId: Text,
  channel: z.string(),
  recipient: Text,
  provider: Text,
  status: z.string(),
  providerMessageId: Text,
  error: Text,
  sentTextId: Text,
  attemptedAt: Stamp,
  updatedAt: Stamp,
});
export const PersonLogsQuery = z.object({ startDate: IsoDate.optional(), endDate: IsoDate.optional() });
export const RecentQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) });
