import { z } from 'zod';
import { DELIVERY_RETRIES, jobContract } from '../queue';

const Uuid = z.uuid();

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
  ...DELIVERY_RETRIES,
});

/**
 * Messaging's job that sends one of the church's email templates to one person, merge fields filled in (doing's
 * `sendEmail` step action, enqueued in the card's transaction; `subject` overrides the template's). A person
 * without an address, or a template that is not the church's, sends nothing; the delivery log says which.
 */
export const templateEmail = jobContract({
  name: 'messaging.templateEmail',
  schema: z.object({
    churchId: Uuid,
    templateId: Uuid,
    personId: Uuid,
    subject: z.string().max(500).optional(),
    /** what the mail is about, for the delivery log (`task` and the card's id) */
    contentType: z.string().max(40).optional(),
    contentId: z.string().max(100).optional(),
  }),
  ...DELIVERY_RETRIES,
});


/** Messaging's internal routes other modules call (signed; `callInternal`). */
export const messagingInternal = {
  /** a streaming service's chat starts with no blocked address (content, when a service is saved or deleted) */
  clearBlockedIps: {
    module: 'messaging' as const,
    path: '/messaging/internal/blockedips/clear',
    body: z.array(z.object({ churchId: Uuid, serviceId: Uuid })).min(1).max(500),
    answer: z.object({ removed: z.number() }),
  },
};
