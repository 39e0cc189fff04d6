import { z } from 'zod';
import { Id } from '@church/common';
import { Text } from './common';

export const BlockedIp = z.object({ id: z.string(), churchId: z.string(), conversationId: Text, serviceId: Text, ipAddress: z.string() });
export const SaveBlockedIp = z.object({
  id: Id.optional(),
  conversationId: Id.nullish(),
  serviceId: Id.nullish(),
  ipAddress: z.string().trim().min(2).max(64),
});
export const ClearItem = z.object({ serviceId: Id, churchId: Id });
export const Cleared = z.object({ removed: z.number() });
