import { z } from 'zod';
import { Id } from '@church/common';

/** A request as B1Admin's pending lists and B1App's group screens read it (Helpers' GroupJoinRequestInterface). */
export const JoinRequest = z.object({
  id: z.string(),
  churchId: z.string(),
  groupId: z.string(),
  personId: z.string(),
  message: z.string().nullable(),
  status: z.string(),
  requestDate: z.date(),
  decidedBy: z.string().nullable(),
  decidedDate: z.date().nullable(),
  declineReason: z.string().nullable(),
  person: z.object({ id: z.string(), name: z.object({ display: z.string().nullable(), first: z.string().nullable(), last: z.string().nullable() }), photo: z.string().nullable(), contactInfo: z.object({ email: z.string().nullable() }).optional() }).optional(),
  group: z.object({ id: z.string(), name: z.string().nullable() }),
});
export const JoinRequestList = z.array(JoinRequest);
export const JoinRequestCreate = z.object({ groupId: Id, message: z.string().trim().max(1000).nullish() });
export const DeclineBody = z.object({ declineReason: z.string().trim().max(500).nullish() }).optional();
export const GroupParams = z.object({ groupId: Id });
