import type { z } from 'zod';
import { HttpError, fetchOutbound } from '@church/common';
import type { DoingDeps } from '../deps';
import type { cardWebhook } from '../jobs/contracts';

/**
 * Delivers a workflow step's `webhook` action (the `doing.cardWebhook` job): the card's facts POSTed as JSON to the
 * church's URL through `fetchOutbound` (public addresses only, no redirects); any answer other than 2xx fails the
 * delivery, and the job is retried.
 */
export async function deliverCardWebhook(deps: Pick<DoingDeps, 'config'>, data: z.output<typeof cardWebhook.schema>): Promise<void> {
  const answer = await fetchOutbound(data.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'ChurchWorkflows/1.0' },
    body: JSON.stringify(data.payload),
    timeoutMs: 10_000,
    maxBytes: 64 * 1024,
    maxRedirects: 0,
    allowAddress: deps.config.OUTBOUND_ALLOW_PRIVATE ? () => true : undefined,
  });
  if (answer.status < 200 || answer.status >= 300) throw new HttpError(502, [{ msg: `webhook answered ${answer.status}` }]);
}
