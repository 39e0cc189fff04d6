import { z } from 'zod';
import { DELIVERY_RETRIES, EmailMessage, jobContract, WebhookJob } from '@church/common';

/** Applies a recorded gateway webhook event once (webhookIntake hands it over with the id `webhook-<eventRow>`). */
export const webhookEffect = jobContract({ name: 'giving.webhookEvent', schema: WebhookJob, attempts: 8, backoffMs: 2000 });

/**
 * Builds the receipt of one donation and hands it to giving's mail job (job id `receipt-<donationId>`: one receipt
 * per donation). It delivers something to a person: it retries as long as an outage of membership may last.
 */
export const receiptJob = jobContract({
  name: 'giving.receipt',
  schema: z.object({ churchId: z.uuid(), donationId: z.uuid() }),
  ...DELIVERY_RETRIES,
});

/**
 * Mails one donation's receipt (job id `receipt-mail-<donationId>`), once: the handler records the delivery under
 * that key (`job_deliveries`), so the job handed to the queue again after it ran mails nothing.
 */
export const receiptMailJob = jobContract({
  name: 'giving.receiptMail',
  schema: z.object({ churchId: z.uuid(), donationId: z.uuid(), message: EmailMessage }),
  ...DELIVERY_RETRIES,
});

/**
 * Sends a church's pending receipts (`pending_receipts`: the donations webhooks recorded) in batches, a job per
 * church and tenth of a second at most (job id `receipts-<churchId>-<tenth>`, run after that tenth ends).
 */
export const receiptsJob = jobContract({
  name: 'giving.receipts',
  schema: z.object({ churchId: z.uuid() }),
  ...DELIVERY_RETRIES,
});

/** Every minute: receipts still pending after the job that should have sent them (a worker stopped). */
export const receiptsSweep = jobContract({
  name: 'giving.receiptsSweep',
  schema: z.object({}),
  attempts: 3,
  backoffMs: 10_000,
  repeat: { everyMs: 60_000 },
});
