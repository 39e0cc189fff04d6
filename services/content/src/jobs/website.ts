import { z } from 'zod';
import { DAY_MS, handle, jobContract, type JobDefinition } from '@church/common';
import type { ContentDeps } from '../deps';
import { deleteHistoryBefore } from '../repos/website/history';
import { websiteSettings } from '../config/website';

/** Removes page history entries older than PAGE_HISTORY_DAYS (30 by default), every night. */
export const cleanPageHistory = jobContract({
  name: 'content.cleanPageHistory',
  schema: z.object({}).default({}),
  attempts: 3,
  backoffMs: 60_000,
  repeat: { cron: '17 3 * * *' },
});

/** Deletes entries created before the cut-off; answers how many went. */
export async function removeOldHistory(deps: Pick<ContentDeps, 'db' | 'config'>, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - websiteSettings(deps.config).historyDays * DAY_MS);
  return deleteHistoryBefore(deps.db, cutoff);
}

/** The website half's jobs. */
export function websiteJobs(deps: ContentDeps): JobDefinition[] {
  return [
    handle(cleanPageHistory, async (_data, ctx) => {
      const removed = await removeOldHistory(deps);
      ctx.log.info({ removed }, 'old page history removed');
    }),
  ];
}
