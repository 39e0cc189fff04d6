import { z } from 'zod';
import { jobContract } from './queue';

/**
 * Jobs one module enqueues and another owns. The owner registers the handler (`handle(contract, ...)` in its
 * `jobs`) and lists the contract in its definition's `owns`; anyone enqueues it with `deps.queue.enqueue`.
 */

/**
 * Notify people of a church (messaging owns it): an in-app notification for each, then escalation by their
 * preferences (socket, push, email). Membership, doing and giving enqueue it.
 */
export const notifyPeople = jobContract({
  name: 'messaging.notifyPeople',
  schema: z.object({
    churchId: z.uuid(),
    personIds: z.array(z.uuid()).min(1).max(5000),
    message: z.string().min(1).max(2000),
    /** what the notification is about, for clients that open it */
    contentType: z.string().max(100).optional(),
    contentId: z.string().max(200).optional(),
    link: z.string().max(2000).optional(),
    /** the person whose action caused it; never notified of their own action */
    triggeredByPersonId: z.uuid().optional(),
  }),
  attempts: 5,
  backoffMs: 2000,
});
