import { handle, type JobContract, type JobDefinition } from '@church/common';
import type { GivingDeps } from '../app';
import { receiptJob, webhookEffect } from './contracts';
import { sendReceipt } from './receipt';
import { handleWebhookEvent } from './webhooks';

export { receiptJob, webhookEffect } from './contracts';

/** Contracts the giving module owns (exactly one handler each, checked at startup). */
export const ownedJobs: JobContract[] = [webhookEffect, receiptJob];

export function givingJobs(deps: GivingDeps): JobDefinition[] {
  return [
    handle(webhookEffect, async ({ webhookEventId }) => handleWebhookEvent(deps, webhookEventId)),
    handle(receiptJob, async ({ churchId, donationId }, ctx) => {
      const outcome = await sendReceipt(deps, churchId, donationId);
      ctx.log.info({ donationId, outcome }, 'donation receipt');
    }),
  ];
}
