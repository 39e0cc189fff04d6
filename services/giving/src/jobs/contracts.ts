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
