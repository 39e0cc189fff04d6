import { badRequest, type ModuleDeps } from '@church/common';
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

/** The adapter named `providerId`, or a 400 naming the field (own keys only: `constructor` is unknown, not Object's). */
export function providerOf(providers: DoingProviders, providerId: string): ContentProvider {
  const { contentProviders } = providers;
  const provider = Object.hasOwn(contentProviders, providerId) ? contentProviders[providerId] : undefined;
  if (!provider) throw badRequest('providerId', `unknown provider; known: ${Object.keys(contentProviders).join(', ')}`);
  return provider;
}

export function buildProviders(deps: ModuleDeps<Config, undefined>): DoingProviders {
  const c = deps.config;
  const lessons = lessonsChurch({ apiBase: c.LESSONS_API_BASE, oauthBase: c.LESSONS_OAUTH_BASE, clientId: c.LESSONS_CLIENT_ID, clientSecret: c.LESSONS_CLIENT_SECRET, timeoutMs: c.PROVIDER_TIMEOUT_MS });
  const feed = c.LESSON_FEED_BASE_URL === c.LESSONS_API_BASE ? lessons : lessonsChurch({ apiBase: c.LESSON_FEED_BASE_URL, timeoutMs: c.PROVIDER_TIMEOUT_MS });
  return { contentProviders: { [lessons.id]: lessons }, lessonFeed: { venueFeed: (id) => feed.venueFeed(id) } };
}
