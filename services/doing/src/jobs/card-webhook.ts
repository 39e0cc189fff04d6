import { z } from 'zod';
import { HttpError, fetchOutbound, jobContract } from '@church/common';
import type { DoingDeps } from '../deps';

/**
 * A workflow step's `webhook` action: the card's facts POSTed as JSON to the church's URL. A job enqueued in the
 * card's transaction (it exists only if the card's move commits, and no outside call is made while rows are held);
 * the URL goes through `fetchOutbound` (public addresses only, no redirects); any answer other than 2xx is retried.
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
