import type { JobDefinition } from '@church/common';
import type { ContentDeps } from '../app';

/** The media half's jobs. */
export function mediaJobs(_deps: ContentDeps): JobDefinition[] {
  return [];
}
