import { z } from 'zod';
import { handle, jobContract, type JobDefinition } from '@church/common';
import type { ContentDeps } from '../deps';
import { refreshServices } from '../domain/media/streaming';

/** Every 15 minutes: expired one-time streaming services removed, recurring ones advanced (every church). */
export const refreshStreamingServices = jobContract({
  name: 'content.refreshStreamingServices',
  schema: z.object({}),
  attempts: 3,
  backoffMs: 10_000,
  repeat: { everyMs: 15 * 60 * 1000 },
});

/** The media half's jobs. */
export function mediaJobs(deps: ContentDeps): JobDefinition[] {
  return [handle(refreshStreamingServices, async () => refreshServices(deps.db, null))];
}
