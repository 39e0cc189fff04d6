import { z } from 'zod';
import { DELIVERY_RETRIES, jobContract, type DbOrTx, type Queue } from '@church/common';

// The jobs doing owns, apart from their handlers (`jobs/index.ts`): domain code and routes enqueue them by these
// contracts, and only the handlers run them.

/**
 * Tells a position's team leaders that a volunteer accepted, declined or signed up. Enqueued in the transaction of
 * the answer or the sign-up (it exists only if that commits); a job rather than a call in the request: membership
 * may be away, and it is retried as long as any delivery to a person is (`DELIVERY_RETRIES`).
 */
export const notifyTeamLeaders = jobContract({
  name: 'doing.notifyTeamLeaders',
  schema: z.object({ churchId: z.uuid(), assignmentId: z.uuid(), status: z.enum(['Accepted', 'Declined', 'SignedUp']) }),
  ...DELIVERY_RETRIES,
});

/**
 * Checks every active automation of every church once a day (and on `GET /doing/automations/check`), and runs the
 * workflows' schedule triggers.
 */
export const checkAutomations = jobContract({
  name: 'doing.checkAutomations',
  schema: z.object({ date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(), churchId: z.uuid().optional() }),
  attempts: 3,
  backoffMs: 60_000,
  repeat: { cron: '15 6 * * *' },
});

/** Every 15 minutes: cards whose snooze ended go on (a step's `delay`) or come back to their assignee. */
export const wakeSnoozedCards = jobContract({ name: 'doing.wakeCards', schema: z.object({}), attempts: 3, backoffMs: 60_000, repeat: { cron: '*/15 * * * *' } });

/**
 * A workflow step's `webhook` action: the card's facts POSTed as JSON to the church's URL. A job enqueued in the
 * card's transaction (it exists only if the card's move commits, and no outside call is made while rows are held);
 * the delivery is `deliverCardWebhook` (domain/card-webhook.ts); any answer other than 2xx is retried.
 */
export const cardWebhook = jobContract({
  name: 'doing.cardWebhook',
  schema: z.object({
    churchId: z.uuid(),
    url: z.string().url().max(2000),
    payload: z.object({ cardId: z.string(), workflowId: z.string().nullable(), stepId: z.string().nullable(), personId: z.string().nullable(), personName: z.string().nullable() }),
  }),
  attempts: 5,
  backoffMs: 30_000,
});

/** Enqueues the leaders' notice of an answer or a sign-up in the change's transaction (one per answer: its id is the row's version). */
export function tellLeaders(queue: Queue, tx: DbOrTx, row: { id: string; churchId: string; updatedAt: Date }, status: 'Accepted' | 'Declined' | 'SignedUp') {
  return queue.enqueue(notifyTeamLeaders, { churchId: row.churchId, assignmentId: row.id, status }, { jobId: `notify-${row.id}-${status}-${row.updatedAt.getTime()}`, tx });
}
