import type { ModuleDeps } from '@church/common';
import type { Config } from '../config';
import type { ContentProvider } from './content-provider';
import { lessonsChurch, type VenueFeed } from './lessons-church';

/** The plan feed's source of lesson content for a plan's `contentId` (a venue of the lesson provider). */
export interface LessonFeed {
  venueFeed(contentId: string): Promise<VenueFeed>;
}

/** The doing module's outside systems: content providers by id, and the plan feed's lesson source. */
export interface DoingProviders {
  contentProviders: Record<string, ContentProvider>;
  lessonFeed: LessonFeed;
}

export function buildProviders(deps: ModuleDeps<Config, undefined>): DoingProviders {
  const c = deps.config;
  const lessons = lessonsChurch({ apiBase: c.LESSONS_API_BASE, oauthBase: c.LESSONS_OAUTH_BASE, clientId: c.LESSONS_CLIENT_ID, timeoutMs: c.PROVIDER_TIMEOUT_MS });
  const feed = c.LESSON_FEED_BASE_URL === c.LESSONS_API_BASE ? lessons : lessonsChurch({ apiBase: c.LESSON_FEED_BASE_URL, timeoutMs: c.PROVIDER_TIMEOUT_MS });
  return { contentProviders: { [lessons.id]: lessons }, lessonFeed: { venueFeed: (id) => feed.venueFeed(id) } };
}
