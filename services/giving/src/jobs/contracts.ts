import { z } from 'zod';
import { jobContract, WebhookJob } from '@church/common';

/** Applies a recorded gateway webhook event once (webhookIntake hands it over with the id `webhook-<eventRow>`). */
export const webhookEffect = jobContract({ name: 'giving.webhookEvent', schema: WebhookJob, attempts: 8, backoffMs: 2000 });

/** Emails the donor the receipt of one donation (job id `receipt-<donationId>`: one receipt per donation). */
export const receiptJob = jobContract({
  name: 'giving.receipt',
  schema: z.object({ churchId: z.uuid(), donationId: z.uuid() }),
  attempts: 5,
  backoffMs: 2000,
});

/**
 * Sends a church's pending receipts (`pending_receipts`: the donations webhooks recorded) in batches, a job per
 * church and tenth of a second at most (job id `receipts-<churchId>-<tenth>`, run after that tenth ends).
 */
export const receiptsJob = jobContract({
  name: 'giving.receipts',
  schema: z.object({ churchId: z.uuid() }),
  attempts: 5,
  backoffMs: 2000,
});

/** Every minute: receipts still pending after the job that should have sent them (a worker stopped). */
export const receiptsSweep = jobContract({
  name: 'giving.receiptsSweep',
  schema: z.object({}),
  attempts: 3,
  backoffMs: 10_000,
  repeat: { everyMs: 60_000 },
});
