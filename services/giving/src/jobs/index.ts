import { handle, type JobContract, type JobDefinition } from '@church/common';
import type { GivingDeps } from '../deps';
import { applyWebhookEvent } from '../domain/webhook-effects';
import { receiptJob, receiptMailJob, receiptsJob, receiptsSweep, webhookEffect } from './contracts';
import { mailReceiptOnce, sendPendingReceipts, sendReceipt, sweepPendingReceipts } from './receipt';

export { receiptJob, receiptMailJob, receiptsJob, receiptsSweep, webhookEffect } from './contracts';

/** Contracts the giving module owns (exactly one handler each, checked at startup). */
export const ownedJobs: JobContract[] = [webhookEffect, receiptJob, receiptMailJob, receiptsJob, receiptsSweep];

export function givingJobs(deps: GivingDeps): JobDefinition[] {
  return [
    handle(webhookEffect, async ({ webhookEventId }) => applyWebhookEvent(deps, webhookEventId)),
    handle(receiptJob, async ({ churchId, donationId }, ctx) => {
      const outcome = await sendReceipt(deps, churchId, donationId);
      ctx.log.info({ donationId, outcome }, 'donation receipt');
    }),
    handle(receiptMailJob, async (job, ctx) => {
      const outcome = await mailReceiptOnce(deps, job, ctx.log);
      ctx.log.info({ donationId: job.donationId, outcome }, 'donation receipt mail');
    }),
    handle(receiptsJob, async ({ churchId }, ctx) => {
      const sent = await sendPendingReceipts(deps, churchId);
      ctx.log.info({ churchId, sent }, 'pending receipts');
    }),
    handle(receiptsSweep, async (_data, ctx) => {
      const churches = await sweepPendingReceipts(deps);
      if (churches) ctx.log.info({ churches }, 'pending receipts swept');
    }),
  ];
}
