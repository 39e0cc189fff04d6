import type { JobDefinition } from '@church/common';
import type { ContentDeps } from '../app';

/** The website half's jobs. */
export function websiteJobs(_deps: ContentDeps): JobDefinition[] {
  return [];
}
